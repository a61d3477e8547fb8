"""`taskmodel`: list the catalogue, check the model and its variants, replay traces, run the gate.

Exit codes: 0 every property holds within the stated budget (known gaps shown as expected);
1 a property refuted; 2 undetermined (vacuous, unreached, timeout) with nothing refuted;
3 bad usage or input, with a one-line message.
"""
from __future__ import annotations

import argparse
import sys

from .exitcodes import EXIT_OK, EXIT_UNDETERMINED, EXIT_USAGE, UsageError


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> Parser:
    p = Parser(prog="taskmodel", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", parser_class=Parser, required=True)

    ls = sub.add_parser("list", help="properties with ids, kinds and clauses; built-in variants")
    ls.add_argument("--json", action="store_true")

    ck = sub.add_parser("check", help="explore the baseline or a variant and print a verdict table")
    ck.add_argument("--variant", default=None, help="a built-in variant name, or path/to/amendment.py[:Class]")
    ck.add_argument("--budget", type=float, default=60.0, help="seconds of exploration (default 60)")
    ck.add_argument("--seed", type=int, default=0)
    ck.add_argument("--steps", type=int, default=40, help="steps per explored example (default 40)")
    ck.add_argument("--engine", choices=("hypothesis", "z3", "all"), default="hypothesis")
    ck.add_argument("--depth", type=int, default=8, help="Z3 bound (default 8)")
    ck.add_argument("--timeout", type=float, default=300.0,
                    help="Z3 wall-clock seconds for the whole check; what it leaves open is undetermined (default 300)")
    ck.add_argument("--json", action="store_true", help="print the result as JSON")
    ck.add_argument("--out", default="out", help="where the result JSON is written (default out/)")
    ck.add_argument("--counterexamples", default=None,
                    help="write counterexamples under this folder (counterexamples/ for the committed set)")

    rp = sub.add_parser("replay", help="replay an ITF trace in the executable model")
    rp.add_argument("file")

    gt = sub.add_parser("gate", help="re-run the baseline and every built-in variant against the manifest")
    gt.add_argument("--manifest", default="counterexamples/manifest.json")
    gt.add_argument("--budget", type=float, default=None, help="seconds per variant (default: the manifest's)")
    gt.add_argument("--only", nargs="*", default=None, help="check only these variants")
    gt.add_argument("--record", action="store_true", help="record the verdicts as the new manifest and "
                                                          "rewrite the committed counterexamples")
    gt.add_argument("--write", action="store_true", help="rewrite the counterexamples from this run "
                                                         "(the manifest is left as it is)")
    gt.add_argument("--jobs", type=int, default=2)

    sub.add_parser("rules", help="the rules and parameters an amendment may change")

    dg = sub.add_parser("diagrams", help="regenerate diagrams/ from the model's lifecycles")
    dg.add_argument("rest", nargs=argparse.REMAINDER)
    rpt = sub.add_parser("report", help="write the static HTML report of the latest check")
    rpt.add_argument("rest", nargs=argparse.REMAINDER)
    return p


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv and argv[0] in ("diagrams", "report"):
            # These take their own flags (argparse will not pass `--x` through REMAINDER).
            from . import commands
            return getattr(commands, f"cmd_{argv[0]}")(argparse.Namespace(rest=argv[1:]))
        args = build_parser().parse_args(argv)
        from . import commands
        return getattr(commands, f"cmd_{args.command}")(args)
    except UsageError as e:
        print(str(e).splitlines()[0], file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        print("taskmodel: interrupted", file=sys.stderr)
        return EXIT_UNDETERMINED


if __name__ == "__main__":
    sys.exit(main())
