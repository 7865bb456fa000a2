"""Errors that the CLI turns into exit codes (2 = bad input, 1 = internal)."""


class InputError(Exception):
    """Bad input: the message names the file, the line and the problem."""

    def __init__(self, path, line, problem):
        self.path = str(path)
        self.line = line
        self.problem = problem
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {problem}")

    def __reduce__(self):
        # picklable (Dask workers send it back to the flow's process)
        return (type(self), (self.path, self.line, self.problem))


class StoreBusyError(Exception):
    """Another writer holds the store's lock."""
