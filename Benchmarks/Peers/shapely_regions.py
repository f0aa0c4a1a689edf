"""The peer of `locationd-bench regions`: shapely 2's STRtree on the same regions and points.

Reads the JSON the benchmark wrote (argv[1]): "many" and "few" region lists (["c", lat,
lon, radius_m] circles, drawn here as 32-gons; ["p", [[lon, lat], ...]] polygons) and
"points" ([lon, lat]). For each list prints one line:
`NAME MEDIAN_NS_PER_POINT BULK_NS_PER_POINT HITS`: the median of one `query` per point
(as a per-fix update calls it) and one vectorized `query` of all points, divided.
"""

import json
import math
import sys
import time

import numpy as np
import shapely
from shapely import Polygon, STRtree

METRES_PER_DEGREE = 6_371_008.8 * math.pi / 180


def geometries(regions):
    out = []
    for region in regions:
        if region[0] == "c":
            _, lat, lon, radius = region
            dlat = radius / METRES_PER_DEGREE
            dlon = dlat / math.cos(math.radians(lat))
            out.append(
                Polygon(
                    [
                        (lon + dlon * math.cos(2 * math.pi * k / 32), lat + dlat * math.sin(2 * math.pi * k / 32))
                        for k in range(32)
                    ]
                )
            )
        else:
            out.append(Polygon(region[1]))
    return out


def main():
    with open(sys.argv[1]) as handle:
        data = json.load(handle)
    points = shapely.points(np.array(data["points"]))
    for name in ("many", "few"):
        tree = STRtree(geometries(data[name]))
        for point in points[:1000]:
            tree.query(point, predicate="intersects")
        times = []
        hits = 0
        for point in points:
            start = time.perf_counter_ns()
            found = tree.query(point, predicate="intersects")
            times.append(time.perf_counter_ns() - start)
            hits += len(found)
        times.sort()
        start = time.perf_counter_ns()
        tree.query(points, predicate="intersects")
        bulk = (time.perf_counter_ns() - start) / len(points)
        print(name, times[len(times) // 2], bulk, hits, flush=True)


main()
