"""The project-wide model: every file's facts combined, so that checks can see a global
``task_time_limit`` in a settings module while looking at a task in another file."""

from jobcheck.project.model import Project

__all__ = ["Project"]
