"""Supplier catalogue imports on arq: coroutines run by an arq worker."""

import httpx
import requests
from arq import cron, func


async def import_supplier_feed(ctx: dict, supplier_id: int) -> None:
    # Mistake: requests blocks the worker's event loop, so job_timeout cannot fire.
    requests.get(f"https://suppliers.example.com/{supplier_id}/feed.csv", timeout=10)


async def import_supplier_prices(ctx: dict, supplier_id: int) -> None:
    # Correct twin: an async client, awaited.
    async with httpx.AsyncClient(timeout=10) as client:
        await client.get(f"https://suppliers.example.com/{supplier_id}/prices.csv")


async def refresh_all_suppliers(ctx: dict) -> None:
    # Mistake: "import_supplier_feeds" is not a registered name: the job fails at run time.
    await ctx["redis"].enqueue_job("import_supplier_feeds", 1)
    # Correct twin: the name arq registers (the function's name).
    await ctx["redis"].enqueue_job("import_supplier_prices", 1)


class WorkerSettings:
    functions = [import_supplier_feed, func(import_supplier_prices, timeout=120)]
    cron_jobs = [cron(refresh_all_suppliers, hour={2, 14}, minute=53)]
    job_timeout = 600
    keep_result_forever = True  # failed jobs stay inspectable
