from ..amend import Amendment


class InputRequiredToTasked(Amendment):
    """RFC 0198 negative example 1 (§B.3).

    "The same request answered { resultType: "input_required", … } violates §B.3": a declaring
    `tools/call` whose run waits for an approval or for input is answered `InputRequiredResult`
    instead of `CreateTaskResult`.
    """
    name = "input-required-to-tasked"
    kind = "negative-example"
    source = "RFC 0198 Examples, Negative 1; §B.3"
    changes = "a declaring call whose run waits for client input is answered `InputRequiredResult`"
    expect = {"CRT-1": "refuted"}

    def answer_tools_call(self, world, q):
        run = world.runs[q.run]
        if run.durable and run.status in ("waiting-approval", "waiting-input"):
            return self.input_required(world, run, q)
        return super().answer_tools_call(world, q)
