# The image `searchbench deploy kubernetes` runs (one pod a part of a run in parts):
#   docker build -t registry.example/searchbench:0.1.0 . && docker push registry.example/searchbench:0.1.0
# The binary on a slim Debian: /bin/sh runs each pod's part, tar lets `kubectl cp` take its
# results store, the CA certificates let it reach an https cluster. No JDK: the parts drive a
# cluster that runs elsewhere (--url).
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p searchbench --bin searchbench

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/searchbench /usr/local/bin/searchbench
# The user the manifest's fsGroup names (deploy::kubernetes::IMAGE_UID).
RUN useradd --uid 10001 --create-home searchbench && mkdir -p /results && chown 10001 /results
USER 10001
WORKDIR /home/searchbench
CMD ["searchbench", "--help"]
