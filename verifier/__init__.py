"""The engines that explore the model and check the properties: schemas, search, replay, CLI."""
