from ..amend import Amendment


class TaskResultTypeOnGet(Amendment):
    """Planted mutant of ext-tasks §Polymorphic Results: `"task"` is used only on CreateTaskResult;
    `tasks/get` results carry `resultType: "complete"`. (Some revisions of the upstream page showed
    `"task"` in two `tasks/get` examples; later ones are corrected.)"""
    name = "task-result-type-on-get"
    kind = "mutant"
    source = "ext-tasks §Polymorphic Results"
    changes = "`tasks/get` answered `resultType: \"task\"`"
    expect = {"WIRE-1": "refuted"}

    def get_task_result(self, world, run, q):
        return {**super().get_task_result(world, run, q), "resultType": "task"}
