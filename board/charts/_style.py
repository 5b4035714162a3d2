"""What every chart shares: the palette (a model keeps its colour across pages)."""

PALETTE = ["#0B5FFF", "#E4572E", "#17BEBB", "#FFC914", "#76B041", "#8E44AD"]
