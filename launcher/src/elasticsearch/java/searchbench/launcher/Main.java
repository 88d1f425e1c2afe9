package searchbench.launcher;

import org.codelibs.elasticsearch.runner.ElasticsearchClusterRunner;

/** Starts one Elasticsearch node bound to 127.0.0.1 and keeps it up until SIGTERM (or stdin EOF). */
public final class Main {
    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args);
        ElasticsearchClusterRunner runner = new ElasticsearchClusterRunner();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                runner.close();
            } catch (Exception e) {
                System.err.println("searchbench-launcher: close failed: " + e);
            }
        }));
        runner.onBuild((number, s) -> {
            s.put("http.port", a.httpPort);
            s.put("transport.port", a.transportPort);
            s.put("network.host", "127.0.0.1");
            // The runner seeds a cluster of its own nodes; searchbench says how nodes meet
            // (single-node discovery, or the seed hosts of its own multi-node cluster).
            s.remove("discovery.seed_hosts");
            s.remove("cluster.initial_cluster_manager_nodes");
            s.remove("cluster.initial_master_nodes");
            // Defaults for a lone node; searchbench's settings below say otherwise for a cluster.
            s.put("discovery.type", "single-node");
            // Without the ingest role every ingest pipeline fails.
            s.putList("node.roles", "master", "data", "ingest");
            for (String key : a.removals) {
                s.remove(key);
            }
            for (String[] kv : a.settings) {
                s.put(kv[0], kv[1]);
            }
            for (String[] kv : a.lists) {
                s.putList(kv[0], kv[1].split(","));
            }
        }).build(ElasticsearchClusterRunner.newConfigs().numOfNode(1).basePath(a.dataDir).clusterName(a.cluster).disableESLogger());
        Args.announceAndWait();
    }
}
