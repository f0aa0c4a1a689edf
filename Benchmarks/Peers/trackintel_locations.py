"""trackintel's generate_locations (dbscan, 100 m, one sample, haversine) on the stays in
argv[1] ("LAT LON" lines): prints the seconds it took (the imports and the reading apart)
and the number of locations, as JSON."""
import json, sys, time

import geopandas as gpd
import pandas as pd
import trackintel as ti
from shapely.geometry import Point

points = [tuple(float(x) for x in line.split()) for line in open(sys.argv[1]) if line.strip()]
start = pd.Timestamp("2026-11-02T00:00:00Z")
staypoints = ti.Staypoints(
    gpd.GeoDataFrame(
        {
            "user_id": [0] * len(points),
            "started_at": [start + pd.Timedelta(hours=i) for i in range(len(points))],
            "finished_at": [start + pd.Timedelta(hours=i, minutes=30) for i in range(len(points))],
            "geometry": [Point(lat, lon) for lat, lon in points],  # the order its haversine reads
        },
        geometry="geometry",
        crs="EPSG:4326",
    )
)
t = time.perf_counter()
_, locations = staypoints.generate_locations(method="dbscan", epsilon=100, num_samples=1, distance_metric="haversine")
print(json.dumps({"seconds": time.perf_counter() - t, "locations": len(locations)}))
