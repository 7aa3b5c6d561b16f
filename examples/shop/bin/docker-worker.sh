#!/bin/sh
set -e
python manage.py migrate --noinput
# Mistake: without exec the shell, not the worker, gets the stop signal at a deploy, and
# running tasks are killed mid-run (JOB-05). Correct: exec celery -A shop worker ...
celery -A shop worker -Q celery,urgent,bulk
