"""The site's build steps, run in order by ``build.py``."""


class BuildError(Exception):
    """A build step that cannot go on, and why: ``build.py``'s ``main()`` stops with its message."""
