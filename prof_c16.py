import os, subprocess, sys, tempfile, time
from pathlib import Path
from benchmarks.latency_server import LatencyServer
from benchmarks.throughput import FIXTURE, API_KEY_ENV
c = int(sys.argv[1]); out = sys.argv[2]; tdir = sys.argv[3] if len(sys.argv) > 3 else None
scratch = Path(tempfile.mkdtemp())
overrides = ["model=openai-compatible","model.model=smollm2-135m","strategy=no_memory","env.set=null","env.first_n=32",
  "env.max_steps=10","experiment.trials=1",f"experiment.max_concurrency={c}","llm.cache.mode=off",
  f"llm.cache.path={scratch/'u.jsonl'}", f"env.translation_cache={tdir or scratch/'tr'}", "progress=false", f"hydra.run.dir={scratch/'run'}"]
with LatencyServer(FIXTURE, delay_s=0.5) as server:
    t = time.perf_counter()
    subprocess.run(["py-spy","record","--gil","--format","raw","-r","200","-o",out,"--",sys.executable,"run.py",*overrides, f"model.base_url={server.base_url}"],
        env={**os.environ, **API_KEY_ENV}, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print("wall", time.perf_counter()-t, "served", server.served)
