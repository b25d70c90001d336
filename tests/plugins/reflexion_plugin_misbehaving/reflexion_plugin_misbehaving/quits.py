"""A source module that ends the process as it is imported, as a script's `sys.exit(main())` left at the bottom
of a module does."""

import sys

sys.exit(0)
