"""The main job's exit code: one verdict per requirement id over every engine that ran."""
import json

from verifier.cli.combine import main


def payload(engine, verdicts, faults=()):
    return {"results": [{"engine": engine, "faults": list(faults),
                         "properties": [{"name": f"p-{rid}", "ids": [rid], "verdict": v} for rid, v in verdicts.items()]}]}


def run(tmp_path, *payloads):
    paths = []
    for i, p in enumerate(payloads):
        f = tmp_path / f"r{i}.json"
        f.write_text(json.dumps(p))
        paths.append(str(f))
    return main(paths)


def test_an_id_one_engine_leaves_open_and_another_judges_is_judged(tmp_path):
    assert run(tmp_path, payload("z3", {"OWN-1": "undetermined", "TTL-4": "undetermined"}),
               payload("bfs", {"OWN-1": "proved", "TTL-4": "vacuous"}),
               payload("hypothesis", {"OWN-1": "holds", "TTL-4": "holds"})) == 0


def test_an_id_no_engine_judged_is_undetermined(tmp_path, capsys):
    assert run(tmp_path, payload("z3", {"TTL-4": "undetermined"}), payload("bfs", {"TTL-4": "vacuous"})) == 2
    assert "TTL-4: undetermined (bfs vacuous; z3 undetermined)" in capsys.readouterr().out


def test_a_refutation_anywhere_wins_and_a_fault_is_shown(tmp_path):
    assert run(tmp_path, payload("bfs", {"OWN-2": "proved"}), payload("hypothesis", {"OWN-2": "refuted"})) == 1
    assert run(tmp_path, payload("bfs", {"OWN-2": "proved"}, faults=[{"where": "x"}])) == 4


def test_a_witness_counts_once_reached(tmp_path):
    assert run(tmp_path, payload("bfs", {"CRT-2": "unreached"})) == 2
    assert run(tmp_path, payload("bfs", {"CRT-2": "unreached"}), payload("hypothesis", {"CRT-2": "reached"})) == 0


def test_a_missing_result_is_bad_input(tmp_path):
    assert main([str(tmp_path / "none.json")]) == 3


def test_a_proof_that_counted_no_case_does_not_judge_an_id_with_cases(tmp_path, capsys):
    z3 = payload("z3", {"ISO-1": "proved"})
    bfs = payload("bfs", {"ISO-1": "vacuous"})
    bfs["results"][0]["properties"][0]["cases"] = {"another tenant, by tasks/get": 0, "purged, by tasks/get": 2}
    assert run(tmp_path, z3, bfs) == 2
    assert "ISO-1: undetermined (bfs vacuous; z3 proved (no case counted))" in capsys.readouterr().out
    bfs["results"][0]["properties"][0].update(verdict="proved", cases={"another tenant, by tasks/get": 1})
    assert run(tmp_path, z3, bfs) == 0
    assert run(tmp_path, payload("z3", {"OWN-1": "proved"})) == 0      # no cases: the proof judges it
