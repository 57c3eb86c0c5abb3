# Local stand-in for the official redis image, from Debian bookworm's own redis-server package (built by
# scripts/deploy/base-images.sh): `redis-server …` runs as the redis user in /data (a volume), and, like
# the official image, with protected mode off so other containers on the network can connect.
FROM rolelink-local/bookworm-minbase:latest
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server redis-tools \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
COPY redis-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /data
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["redis-server"]
