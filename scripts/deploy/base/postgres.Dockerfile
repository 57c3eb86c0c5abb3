# Local stand-in for the official postgres image, from Debian bookworm's own PostgreSQL packages (built by
# scripts/deploy/base-images.sh). Its entrypoint does what docker-compose.yml relies on from the official
# one: POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, initdb on first start, data in
# /var/lib/postgresql/data (a volume), password logins from other containers, pg_isready in the image.
FROM rolelink-local/bookworm-minbase:latest
ARG PG_MAJOR=15
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-${PG_MAJOR} \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
ENV PG_MAJOR=${PG_MAJOR} \
    PATH=/usr/lib/postgresql/${PG_MAJOR}/bin:$PATH \
    PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
EXPOSE 5432
# The official image stops on SIGINT (PostgreSQL's "fast" shutdown).
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
