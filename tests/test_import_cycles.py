"""No import cycles between the project's modules, function-local imports included (docs/architecture.md
"Module dependencies"): grimp reads every import statement of every module, wherever it stands, and a
strongly connected component of more than one module is a cycle."""

import grimp

PACKAGES = ("accounts", "config", "events", "games", "infra", "matchmaking")


def _cycles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_finder_finds_a_cycle():
    graph = grimp.ImportGraph()
    for name in ("a", "a.b", "a.c", "a.d"):
        graph.add_module(name)
    graph.add_import(importer="a.b", imported="a.c")
    graph.add_import(importer="a.c", imported="a.d")
    graph.add_import(importer="a.d", imported="a.b")
    assert _cycles(graph) == [["a.b", "a.c", "a.d"]]


def test_the_project_has_no_import_cycles():
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    assert "games.actions" in graph.modules
    assert _cycles(graph) == []


def test_infra_and_the_settings_import_no_app():
    """infra/ sits below the apps (docs/architecture.md "Module dependencies"); of config, only the
    URL root and the entry points reach into them."""
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    apps = ("accounts", "events", "games", "matchmaking")
    upward = sorted(
        (module, imported)
        for module in graph.modules
        if module.startswith(("infra", "config.settings", "config.celery", "config.gunicorn"))
        for imported in graph.find_modules_directly_imported_by(module)
        if imported.split(".")[0] in apps
    )
    assert upward == []
