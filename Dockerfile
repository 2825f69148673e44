# syntax=docker/dockerfile:1
#
# Cairn in a container: a multi-stage build (Go toolchain, then a small
# runtime image with glibc and nothing else), data in the /data volume.
#
#   docker build -t cairn .
#   docker run -d --name cairn -p 6379:6379 -v cairn-data:/data cairn
#   docker run -d -p 6379:6379 -v cairn-data:/data cairn --requirepass s3cret
#
# Arguments after the image name are Cairn settings (`--name value`) and
# win over the config file. The config file is contrib/cairn.conf from the
# source tree when it exists (an empty one otherwise), at
# /etc/cairn/cairn.conf; mount your own there to replace it. The container
# listens on every interface and, like Redis's official image, turns
# protected mode off (a client from another container or the host is not
# on loopback): set a password (--requirepass) before exposing the port.
#
# `docker stop` sends SIGTERM: Cairn finishes the commands in flight,
# syncs its log and closes the engine, and exits with status 0. Give it
# time with a large dataset: docker stop -t 60.

ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# cgo stays on (the default): Pebble then allocates its block cache and
# memtables outside the Go heap, so the collector's heap target does not
# double the cache. The runtime image provides the matching glibc.
RUN go build -trimpath -ldflags='-s -w' -o /out/cairn ./cmd/cairn
RUN mkdir -p /out/etc /out/data \
    && if [ -f contrib/cairn.conf ]; then cp contrib/cairn.conf /out/etc/cairn.conf; else : > /out/etc/cairn.conf; fi

# distroless/base: glibc, CA certificates, a nonroot user (65532); no shell.
FROM gcr.io/distroless/base-debian12:nonroot
COPY --from=build /out/cairn /usr/local/bin/cairn
COPY --from=build /out/etc/cairn.conf /etc/cairn/cairn.conf
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME ["/data"]
EXPOSE 6379
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/cairn", "/etc/cairn/cairn.conf", "--dir", "/data", "--bind", "0.0.0.0", "--protected-mode", "no"]
