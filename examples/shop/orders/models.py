from django.contrib.auth.models import User
from django.db import models


class Order(models.Model):
    customer = models.ForeignKey(User, on_delete=models.CASCADE)
    total = models.DecimalField(max_digits=10, decimal_places=2)
    paid = models.BooleanField(default=False)
    receipt_sent = models.BooleanField(default=False)
