"""`taskmodel`: list the catalogue, check the model and its variants, replay traces, run the gate.

The command line, the top room: it parses, calls engines and writers, prints and chooses the exit
code, and is the only layer that does. `preflight` refuses bad flags and unwritable outputs before
any command works; `commands` holds the subcommands; `gate` the regression gate, `gate_jobs` one
variant's work for it and `gate_cluster` that work on a pool;
`replay_command`, `swarm_command` (with `swarm_store`, its shared database) and
`validate_command` the commands of the same names.
"""
from __future__ import annotations

import argparse
import sys

from verifier.runtime.budgets import AUTHOR_EXAMPLES, DEFAULT_EXAMPLES, DEFAULT_RLIMIT, EXAMPLES_PER_CHUNK, TIME_CAP
from verifier.runtime.exitcodes import (EXIT_FAULT, EXIT_INTERRUPTED, EXIT_OK, EXIT_UNDETERMINED, EXIT_USAGE,
                                        UsageError)
from verifier.runtime.files import path_arg
from verifier.runtime.watchdog import CapReached

EXIT_CODES = """exit codes:
  0  every property holds within the stated bounds and budget (known gaps shown as expected)
  1  a property refuted, with a trace that replays (also when a fault was met too: a refutation
     that replays is a real answer, and the fault is shown beside it)
  2  undetermined with nothing refuted: vacuous, unreached, undetermined, an unexercised override
  3  bad usage or input (one line naming it); also `taskmodel` with no command
  4  a fault at run time: an amendment's rule or the model raised, called sys.exit, or used more
     CPU time than --step-timeout in one step (reported with its file and line and the steps that led to it)
  130 interrupted (Ctrl-C): the run stops, files already written stay whole
with `check --expect`: 0 exactly when every expectation of the variant is met, else 1 (4 on a fault)
a closed stdout ends a command quietly with 0"""

BUDGETS = """budgets: work bounds every command (check's --examples, --max-states, --depth, --rlimit; the gate's
manifest), so an answer is the same on any machine at any load; there is no wall-clock cap unless
--budget S (or Z3's --timeout S) asks for one, and a progress line on stderr every few seconds shows
a long wait. A cap stops even a step blocked across it; what it cuts short is undetermined (time cap)"""


CLUSTER_HELP = ("auto: a local Ray cluster over this machine's cores; HOST:PORT: an existing one (`ray start "
                "--head`); without Ray or a reachable cluster, said in one line, the local processes")


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}")


def _parser(sub, name: str, help: str, budgets: bool = False, **kw):
    return sub.add_parser(name, help=help, description=help, epilog=(BUDGETS + "\n\n" if budgets else "") + EXIT_CODES,
                          formatter_class=argparse.RawDescriptionHelpFormatter, **kw)


def build_parser() -> Parser:
    p = Parser(prog="taskmodel", description=__doc__.splitlines()[0], epilog=BUDGETS + "\n\n" + EXIT_CODES,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}",
                   help="print the version and exit")
    sub = p.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")

    ls = _parser(sub, "list", "properties with ids, kinds and clauses; built-in variants")
    ls.add_argument("--json", action="store_true", help="print the listing as JSON")
    ls.add_argument("--profile", choices=("ext-tasks",), default=None,
                    help="list only the ids a profile judges and those it leaves out, with why (ext-tasks: a plain "
                         "MCP Tasks server, docs/third-party.md)")

    ck = _parser(sub, "check", "explore the baseline or a variant and print a verdict table", budgets=True)
    ck.add_argument("--variant", default=None, help="a built-in variant name, or path/to/amendment.py[:Class]")
    ck.add_argument("--engine", choices=("hypothesis", "bfs", "z3", "all"), default=None,
                    help="hypothesis: random exploration (the default for the baseline and built-ins); bfs: "
                         "exhaustive search at a scope; z3: bounded model checking and k-induction; all: each "
                         "in turn. An amendment file gets bfs at every default scope and home, to completion, then "
                         "hypothesis")
    ck.add_argument("--examples", type=int, default=None, metavar="N",
                    help=f"the random engine's work budget: examples explored (default {DEFAULT_EXAMPLES}, and "
                         f"{AUTHOR_EXAMPLES} after an amendment file's exhaustive search; explored in chunks of "
                         f"{EXAMPLES_PER_CHUNK}); with the seed, the same answer on any machine")
    ck.add_argument("--max-states", type=int, default=None, metavar="N",
                    help="bfs: the work budget, distinct states per scope (default: none, every search completes)")
    ck.add_argument("--budget", type=float, default=None, metavar="S",
                    help="an outer wall-clock cap for the whole check, opt-in (default: none, the work budgets "
                         "bound it; at most a day): a step running when it passes is stopped, and the work it "
                         "cuts short is undetermined (time cap), never another verdict")
    ck.add_argument("--seed", type=int, default=0, help="the exploration's seed (default 0)")
    ck.add_argument("--steps", type=int, default=40, help="steps per explored example (default 40; at most 1000)")
    ck.add_argument("--step-timeout", type=float, default=5.0, metavar="S",
                    help="the most CPU time one step or check may use before it is a fault (default 5 s; waiting for a "
                         "core on a busy machine uses none)")
    ck.add_argument("--scope", default=None, metavar="NAME[,field=value...]",
                    help="bfs: the scope to search (see `taskmodel list`; any Params field may be overridden); "
                         "default: host-small for the host's properties, composed-small for the harness's")
    ck.add_argument("--no-symmetry", action="store_true",
                    help="bfs: do not merge states that differ only in the order independent requests were sent")
    ck.add_argument("--no-por", action="store_true",
                    help="bfs: no partial-order reduction (by default a search whose properties all declare what "
                         "they read, with no liveness property and no depth bound, queues only an ample set's "
                         "successors where one exists; the verdicts are the same)")
    ck.add_argument("--jobs", type=int, default=2, help="bfs: worker processes, one per scope (default 2)")
    ck.add_argument("--incremental", action=argparse.BooleanOptionalAction, default=True,
                    help="bfs: search an amendment from the baseline's state graph, stored once per model version "
                         "and built by the first search bounded by the scope alone under a cap of 600 s or more "
                         "(default; the verdicts are the search from scratch's, only its time differs)")
    ck.add_argument("--cluster", default=None, metavar="auto|ADDRESS",
                    help="bfs: search on a Ray cluster; " + CLUSTER_HELP)
    ck.add_argument("--depth", type=int, default=None,
                    help="bfs: search only behaviours of at most this many steps (proved-bounded); "
                         "Z3: the BMC bound (default 8); 1 to 1000")
    ck.add_argument("--rlimit", type=int, default=None, metavar="N",
                    help=f"Z3: the work budget, solver resource units per query (default {DEFAULT_RLIMIT:,}); "
                         "a query that runs out is undetermined")
    ck.add_argument("--timeout", type=float, default=None, metavar="S",
                    help="Z3: an outer wall-clock cap for its check (default: none, or what --budget leaves); "
                         "what it cuts short is undetermined (time cap)")
    ck.add_argument("--expect", action="store_true",
                    help="exit 0 exactly when every expectation of the variant (its `expect`) is met, else 1")
    ck.add_argument("--json", action="store_true", help="print the result as one JSON object "
                                                        "(schemas/check-result.schema.json)")
    ck.add_argument("--out", default="out", type=path_arg, help="where the result JSON is written (default out/)")
    ck.add_argument("--counterexamples", default=None, metavar="DIR", type=path_arg,
                    help="where counterexample folders are written (default OUT/counterexamples; "
                         "counterexamples/ is the committed set)")
    ck.add_argument("--no-counterexamples", action="store_true", help="write no counterexample folders")
    ck.add_argument("--debug", action="store_true", help="also print the Python traceback of each fault")

    rp = _parser(sub, "replay", "replay an ITF trace in the executable model")
    rp.add_argument("file", help="a trace.itf.json written by check or the gate")
    rp.add_argument("--variant", default=None, metavar="FILE",
                    help="the amendment file the trace was recorded on (a trace never names a file to import)")

    gt = _parser(sub, "gate", "re-run the baseline and every built-in variant against the manifest", budgets=True)
    gt.add_argument("--manifest", default="counterexamples/manifest.json", type=path_arg,
                    help="the recorded verdicts (default counterexamples/manifest.json)")
    gt.add_argument("--budget", type=float, default=None, metavar="S",
                    help="an outer wall-clock cap per variant, opt-in (default: the manifest's `budget_cap`, else "
                         "none: the manifest's work bounds each variant)")
    gt.add_argument("--only", nargs="*", default=None, help="check only these variants")
    gt.add_argument("--record", action="store_true", help="record the verdicts as the new manifest and "
                                                          "rewrite the committed counterexamples")
    gt.add_argument("--write", action="store_true", help="rewrite the counterexamples from this run "
                                                         "(the manifest is left as it is)")
    gt.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    gt.add_argument("--incremental", action=argparse.BooleanOptionalAction, default=True,
                    help="search each amendment at the default scopes from the baseline's stored graph, built "
                         "first (default; the manifest's records are the search from scratch's)")
    gt.add_argument("--verbose", action="store_true",
                    help="list each variant premise count far below the baseline's (by default only counted)")
    gt.add_argument("--cluster", default=None, metavar="auto|ADDRESS",
                    help="run the variants as Ray tasks; " + CLUSTER_HELP)
    gt.add_argument("--variants", nargs="+", default=None, metavar="DIR|FILE",
                    help="gate these amendments instead of the built-ins (manifest default: "
                         "counterexamples/manifest.json in the first folder given)")

    sw = _parser(sub, "swarm", "swarm verification: many differently seeded, weighted and ordered searches, "
                               "counterexamples shrunk once and stored in a shared example database")
    sw.add_argument("--variant", default=None, help="a built-in variant name, or path/to/amendment.py[:Class]")
    sw.add_argument("--budget", type=float, default=1_800.0,
                    help="an outer wall-clock cap in seconds, a cluster's start not counted (default 1800): the "
                         "work below bounds the swarm; a search the cap cuts leaves undetermined (time cap) "
                         "what the swarm did not refute")
    sw.add_argument("--searches", type=int, default=8, help="searches in the swarm, half random, half bounded "
                                                             "(default 8; the same on any number of workers)")
    sw.add_argument("--examples", type=int, default=600, help="examples of each random search (default 600)")
    sw.add_argument("--states", type=int, default=25_000, help="distinct states of each bounded search (default 25000)")
    sw.add_argument("--seed", type=int, default=0, help="the swarm's seed: each search's seed derives from it")
    sw.add_argument("--cluster", default=None, metavar="auto|ADDRESS", help=CLUSTER_HELP)
    sw.add_argument("--jobs", type=int, default=2, help="local worker processes without --cluster (default 2)")
    sw.add_argument("--redis", default=None, metavar="URL",
                    help="the shared example database (redis://HOST:PORT/DB; default $TASKMODEL_REDIS); "
                         "without one, a folder database under OUT/swarm-db")
    sw.add_argument("--json", action="store_true", help="print the result as one JSON object")
    sw.add_argument("--out", default="out", type=path_arg, help="where the result JSON is written (default out/)")
    sw.add_argument("--counterexamples", default=None, metavar="DIR", type=path_arg,
                    help="where counterexample folders are written (default OUT/counterexamples)")
    sw.add_argument("--no-counterexamples", action="store_true", help="write no counterexample folders")

    va = _parser(sub, "validate", "check a recorded MCP traffic log (schemas/traffic-log.schema.json) against the model")
    va.add_argument("log", help="the log, JSON Lines")
    va.add_argument("--map", default=None, metavar="MAP.json", help="the mapping of bearer tokens, tenants and tools "
                                                                    "to the model's Subjects, tenants and tools")
    va.add_argument("--variant", default=None, help="validate against a built-in variant or path/to/amendment.py[:Class]")
    va.add_argument("--json", action="store_true", help="print the result as one JSON object")
    va.add_argument("--budget", type=float, default=60.0, help="wall-clock seconds (default 60); running out is undetermined")
    va.add_argument("--allow-unmodelled", action="store_true",
                    help="conform (exit 0) though some exchanges were not judged; they are still listed")

    ru = _parser(sub, "rules", "the rules and parameters an amendment may change")
    ru.add_argument("--world", action="store_true",
                    help="print instead the reference of the world and its records (which fields are state), "
                         "the model.wire builders and the helpers a rule may call, as docs/amendments.md quotes it")

    dg = _parser(sub, "diagrams", "regenerate diagrams/ from the model's lifecycles")
    dg.add_argument("rest", nargs=argparse.REMAINDER, help="options of `taskmodel diagrams --help`")
    rpt = _parser(sub, "report", "write the static HTML report of the latest check")
    rpt.add_argument("rest", nargs=argparse.REMAINDER, help="options of `taskmodel report --help`")
    return p


def _version() -> str:
    from verifier.runtime.results import tool_version
    return tool_version()



def console() -> None:
    """The `taskmodel` command: `main`, then an exit that does not free the process's objects one by
    one (a check holds the baseline's stored graphs, millions of objects: freeing them took about a
    second of every check). What is registered to run at exit runs all the same; a thread still
    running (the usual exit waits for it) gets the usual exit."""
    code = main()
    import atexit
    import os
    import threading
    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):       # a closed pipe, a closed stream: nothing left to say
        pass
    os._exit(code)


def main(argv=None) -> int:
    from verifier.runtime import interrupt
    try:
        with interrupt.honoured():
            code = _main(sys.argv[1:] if argv is None else list(argv))
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    # An interrupt that landed where Python ignores exceptions still ends the run as interrupted.
    if code == EXIT_INTERRUPTED or interrupt.requested():
        print("taskmodel: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return code


def _main(argv: list[str]) -> int:
    args = None
    try:
        if argv and argv[0] in ("diagrams", "report"):
            # These take their own flags (argparse will not pass `--x` through REMAINDER).
            from verifier.cli import commands
            try:
                return getattr(commands, f"cmd_{argv[0]}")(argparse.Namespace(rest=argv[1:]))
            except SystemExit as e:    # their own --help
                if _stdout_closed(e):
                    raise
                return e.code if isinstance(e.code, int) else EXIT_USAGE
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:        # --help and --version
            return e.code if isinstance(e.code, int) else EXIT_OK
        if args.command is None:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        if args.command in ("check", "swarm") and args.counterexamples is None and not args.no_counterexamples:
            from pathlib import Path
            args.counterexamples = str(Path(args.out) / "counterexamples")
        if getattr(args, "no_counterexamples", False):
            args.counterexamples = None
        from verifier.cli import commands
        from verifier.cli.preflight import preflight
        preflight(args)
        return getattr(commands, f"cmd_{args.command}")(args)
    except UsageError as e:
        print(str(e).splitlines()[0] if str(e) else "taskmodel: bad usage", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except CapReached as e:     # past the engines (they report it as undetermined): no answer to give
        print(f"taskmodel: {TIME_CAP}: {e}", file=sys.stderr)
        return EXIT_UNDETERMINED
    except (Exception, SystemExit) as e:
        if _stdout_closed(e):
            return _quiet()
        # Model or amendment code that raised (or called sys.exit) outside an engine's guard: a fault,
        # in one line; never a traceback unless asked for, never a pass.
        from verifier.runtime.faults import locate, one_line
        if getattr(args, "debug", False):
            import traceback
            traceback.print_exception(e, file=sys.stderr)
        print(f"taskmodel: fault at {locate(e)}: {one_line(e)}", file=sys.stderr)
        return EXIT_FAULT


def _stdout_closed(e: BaseException) -> bool:
    """Did `e` come of stdout's reader going away (`taskmodel list | head -1`)? Rich's console
    answers a broken pipe with SystemExit(1) from its `on_broken_pipe`."""
    if isinstance(e, BrokenPipeError):
        return True
    import traceback
    return isinstance(e, SystemExit) and any(f.name == "on_broken_pipe" for f in traceback.extract_tb(e.__traceback__))


def _quiet() -> int:
    """A closed stdout ends the command quietly with 0, as a Unix tool's does: what is still
    buffered for it goes nowhere instead of failing again at exit."""
    import os
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):       # no stdout to speak of
        pass
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
