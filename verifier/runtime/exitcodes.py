"""The exit codes every command keeps, and the one-line error of bad usage or input.

0 every property holds within the stated scope and budget (known gaps shown as expected);
1 a property refuted, with a trace that replays; 2 undetermined (vacuous, unreached, unexercised,
a cap or a timeout) with nothing refuted; 3 bad usage or input; 4 an error at run time in an
amendment or in the model (a rule that raised or hung), never mistaken for a refutation; 130 an
interrupt (Ctrl-C), as a shell reports a process ended by SIGINT.
"""
from __future__ import annotations

EXIT_OK, EXIT_REFUTED, EXIT_UNDETERMINED, EXIT_USAGE, EXIT_FAULT = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """Bad usage or input: one line on stderr, exit 3."""
