# Sourced by bench/python-params.sh and bench/python-vs-esrally.sh: the track both time, one
# search task of ITERATIONS searches from CLIENTS clients whose body a param source of its
# `track.py` gives (the same body every time).
#
#   write_python_track DIR ITERATIONS CLIENTS BODY
write_python_track() {
  local dir=$1 n=$2 clients=$3 body=$4
  mkdir -p "$dir"
  cat >"$dir/track.json" <<JSON
{"version": 2, "indices": [{"name": "logs"}], "schedule": [
  {"operation": {"name": "searches", "operation-type": "search", "param-source": "terms"},
   "clients": $clients, "iterations": $n}]}
JSON
  cat >"$dir/track.py" <<PY
class Terms:
    def __init__(self, track, params, **kwargs):
        self.infinite = True
    def partition(self, partition_index, total_partitions):
        return self
    def params(self):
        return {"index": "logs", "body": $body}

def register(registry):
    registry.register_param_source("terms", Terms)
PY
}
