"""A local 3-node Redis Cluster on loopback ports, for the cluster tests (no replicas)."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from storage.embedded import RedisServer, find_redis_cli


def free_cluster_ports(count: int) -> list[int]:
    """Ports p such that p and its cluster bus port p + 10000 are both free on 127.0.0.1."""
    ports: list[int] = []
    for port in range(17100, 20000):
        if len(ports) == count:
            break
        if all(_free(p) for p in (port, port + 10000)):
            ports.append(port)
    return ports


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class LocalCluster:
    def __init__(self, base_dir: Path, nodes: int = 3) -> None:
        self.servers = [
            RedisServer(
                base_dir / f"node{i}",
                port=port,
                extra_args=[
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    "5000",
                ],
            )  # fmt: skip
            for i, port in enumerate(free_cluster_ports(nodes))
        ]
        if len(self.servers) < nodes:
            raise RuntimeError("not enough free loopback ports for a cluster")

    @property
    def ports(self) -> list[int]:
        return [server.port for server in self.servers if server.port]

    def start(self, timeout: float = 20.0) -> None:
        cli = find_redis_cli()
        if cli is None:
            raise RuntimeError("no redis-cli binary to create the cluster")
        for server in self.servers:
            server.start()
        create = subprocess.run(
            [cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in self.ports),
             "--cluster-replicas", "0", "--cluster-yes"],
            capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if create.returncode != 0:
            raise RuntimeError(
                f"redis-cli --cluster create failed: {create.stdout[-300:]} {create.stderr[-300:]}"
            )
        deadline = time.monotonic() + timeout
        while not self._converged():
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster did not reach cluster_state:ok in time")
            time.sleep(0.05)

    def _converged(self) -> bool:
        """Every node says the cluster is ok and all report the same complete slot map (a client that
        starts on a node with a partial view gets MOVED replies and tears down connections in use)."""
        maps = []
        for server in self.servers:
            if not self._ok(server):
                return False
            with server.client(decode_responses=True) as client:
                maps.append(client.execute_command("CLUSTER", "SLOTS"))
        complete = sum(end - start + 1 for start, end, *_ in maps[0]) == 16384
        return complete and all(m == maps[0] for m in maps) and all(r[2][0] == "127.0.0.1" for r in maps[0])

    @staticmethod
    def _ok(server: RedisServer) -> bool:
        with server.client(decode_responses=True) as client:
            info = client.execute_command("CLUSTER INFO")  # redis-py parses it into a dict
        return info.get("cluster_state") == "ok" if isinstance(info, dict) else "cluster_state:ok" in info

    def flush(self) -> None:
        for server in self.servers:
            with server.client() as client:
                client.flushall()

    def stop(self) -> None:
        for server in self.servers:
            server.stop()
