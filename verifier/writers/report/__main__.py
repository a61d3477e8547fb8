import sys

from verifier.writers.report import main

sys.exit(main())
