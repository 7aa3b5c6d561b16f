from django.apps import AppConfig


class ShopConfig(AppConfig):
    name = "shop"

    def ready(self):
        from shop import schedules

        # Mistake: ready() runs in every web worker of every replica, so each one runs
        # the warehouse feed (SCL-38). Run `python -m shop.schedules` once instead.
        schedules.start_warehouse_scheduler()
