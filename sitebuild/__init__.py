"""The site's build steps, run in order by ``build.py``."""
