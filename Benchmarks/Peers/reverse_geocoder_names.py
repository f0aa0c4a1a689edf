"""reverse_geocoder (mode=1, one process) on the points in argv[1] ("LAT LON" lines): prints
the seconds to load (its CSV and k-d tree) and to answer all points in one query and one at
a time, as JSON."""
import json, sys, time

t = time.perf_counter()
import reverse_geocoder

geocoder = reverse_geocoder.RGeocoder(mode=1, verbose=False)
load = time.perf_counter() - t
points = [tuple(float(x) for x in line.split()) for line in open(sys.argv[1]) if line.strip()]
t = time.perf_counter()
geocoder.query(points)
bulk = time.perf_counter() - t
t = time.perf_counter()
for point in points[:10000]:
    geocoder.query([point])
single = (time.perf_counter() - t) / min(len(points), 10000)
print(json.dumps({"load": load, "bulk": bulk / len(points), "single": single}))
