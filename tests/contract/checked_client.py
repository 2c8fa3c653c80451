"""An API test client that validates every JSON answer against the served schema."""

from tests.contract.strict_schema import StrictSchema


class CheckedClient:
    """Wraps an APIClient: each answer is checked, and its failures are gathered in `problems`."""

    def __init__(self, client, schema: StrictSchema, problems: list[str], seen: set):
        self.client = client
        self.schema = schema
        self.problems = problems
        self.seen = seen

    def _check(self, method: str, path: str, response):
        if response.get("Content-Type", "").startswith("application/json"):
            self.seen.add((method, self.schema.template_of(path), response.status_code))
            for problem in self.schema.errors(path, method, response.status_code, response.json()):
                if problem not in self.problems:
                    self.problems.append(problem)
        return response

    def get(self, path, *args, **kwargs):
        return self._check("get", path, self.client.get(path, *args, **kwargs))

    def post(self, path, *args, **kwargs):
        return self._check("post", path, self.client.post(path, *args, **kwargs))

    def delete(self, path, *args, **kwargs):
        return self._check("delete", path, self.client.delete(path, *args, **kwargs))
