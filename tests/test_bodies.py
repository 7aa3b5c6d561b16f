"""The reusable job-body helpers the SCL-17 checks build on."""

from __future__ import annotations

from textwrap import dedent

from jobcheck.extract import extract_file
from jobcheck.project import Project
from jobcheck.project.bodies import job_bodies, unguarded_side_effects

TASKS = dedent(
    """
    from celery import shared_task
    from django.db import connection
    from redis import Redis
    from rq import Queue

    from shop.models import Cart, Order


    @shared_task(time_limit=60)
    def purge_carts():
        Cart.objects.filter(abandoned=True).delete()
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM shop_session WHERE expired")


    @shared_task(time_limit=60)
    def purge_once(run_id):
        if Order.objects.filter(purge_run=run_id).exists():
            return
        Cart.objects.filter(abandoned=True).delete()


    def archive(order_id):
        Order.objects.get(pk=order_id).delete()


    def schedule(order_id):
        Queue(connection=Redis()).enqueue(archive, order_id)
    """
)


def _project() -> Project:
    return Project([extract_file("shop/tasks.py", TASKS.encode(), "shop.tasks")])


def test_job_bodies_include_rq_functions_enqueued_by_reference() -> None:
    names = {body.function.qualname: body.job for body in job_bodies(_project())}
    assert set(names) == {"shop.tasks.purge_carts", "shop.tasks.purge_once", "shop.tasks.archive"}
    assert names["shop.tasks.archive"] is None


def test_unguarded_deletes() -> None:
    bodies = {body.function.name: body.function for body in job_bodies(_project())}
    purge = unguarded_side_effects(bodies["purge_carts"], ("delete",))
    assert [(e.kind, e.loc.line) for e in purge] == [("delete", 12), ("delete", 14)]
    assert unguarded_side_effects(bodies["purge_once"], ("delete",)) == []
    assert unguarded_side_effects(bodies["purge_carts"], ("send", "charge")) == []
    assert len(unguarded_side_effects(bodies["archive"], ("delete",))) == 1
