import sys

from verifier.writers.diagrams import main

sys.exit(main())
