from ..amend import Amendment


class TaskResultTypeOnGet(Amendment):
    """Planted mutant of ext-tasks §Polymorphic Results: `"task"` is used only on CreateTaskResult;
    `tasks/get` results carry `resultType: "complete"`. (Some revisions of the upstream page showed
    `"task"` in two `tasks/get` examples; later ones are corrected.)

    A client reads such a result as a CreateTaskResult, which must be flat (WIRE-2), never carry
    `inputRequests` (PRJ-2), and name a run minted with 128 bits (ID-1): a detailed task breaks all
    three."""
    name = "task-result-type-on-get"
    kind = "mutant"
    source = "ext-tasks §Polymorphic Results"
    changes = "`tasks/get` answered `resultType: \"task\"`"
    expect = {"WIRE-1": "refuted", "WIRE-2": "refuted", "PRJ-2": "refuted", "ID-1": "refuted"}

    def get_task_result(self, world, run, q):
        return {**super().get_task_result(world, run, q), "resultType": "task"}
