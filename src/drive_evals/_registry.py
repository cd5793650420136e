"""What Inspect loads through the `inspect_ai` entry point: tasks, scorers and the chance model provider."""
