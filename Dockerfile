# One image for the web app (gunicorn) and the Celery worker; docker-compose.yml runs both,
# plus the one-off migrations (docs/deployment.md). Dependencies are installed here, at build
# time, never when a container starts.
#
#   docker build -t ambisite .                         web requirements only
#   docker build --build-arg WITH_ML=1 -t ambisite .   + the offline CPU predictor (torch CPU)
FROM python:3.11-slim

ARG WITH_ML=0
# CPU-only torch wheels: the default index would bring a multi-gigabyte CUDA build.
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    AMBISITE_ENV_FILE="" \
    AMBISITE_VAR_DIR=/var/lib/ambisite \
    STATIC_ROOT=/app/staticfiles \
    GUNICORN_BIND=0.0.0.0:8000

WORKDIR /app

# Requirements first, so that a code change does not reinstall them.
COPY requirements.txt requirements-ml.txt ./
RUN pip install -r requirements.txt \
 && if [ "$WITH_ML" = "1" ]; then \
      pip install --index-url "$TORCH_INDEX_URL" "$(grep -E '^torch==' requirements-ml.txt)" \
      && pip install -r requirements-ml.txt; \
    fi

# The code belongs to root and is only read by the app user; uploads, artifacts and the
# Celery files go to AMBISITE_VAR_DIR (a volume in docker-compose.yml).
RUN useradd --system --uid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin ambisite \
 && mkdir -p /var/lib/ambisite \
 && chown ambisite:ambisite /var/lib/ambisite
COPY . .

# Hashed, compressed static files, served by WhiteNoise (the key only satisfies DEBUG=0 here;
# the containers get the real one from .env).
RUN DEBUG=0 SECRET_KEY=collectstatic-at-build-time AMBISITE_VAR_DIR=/tmp/ambisite-build \
    python manage.py collectstatic --noinput --verbosity 0 \
 && rm -rf /tmp/ambisite-build

USER ambisite
EXPOSE 8000
CMD ["gunicorn", "-c", "ambisite/gunicorn.conf.py"]
