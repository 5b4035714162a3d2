import sys

from board.cli import main

sys.exit(main())
