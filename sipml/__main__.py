import sys

from sipml.cli import main

sys.exit(main())
