#ifndef LOCATIOND_CGPS_SHIM_H
#define LOCATIOND_CGPS_SHIM_H
#include <gps.h>
#include <stdlib.h>

/* Accessors over struct gps_data_t. The struct is large (the report union alone
 * holds AIS and RTCM buffers), so Swift reaches its fields through pointers here
 * instead of copying the whole struct for each field read. */

/* A zeroed gps_data_t on the heap, for gps_open; free it with locd_gps_data_free. */
static inline struct gps_data_t *locd_gps_data_new(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}

static inline void locd_gps_data_free(struct gps_data_t *data) { free(data); }

/* The socket of an open session. */
static inline int locd_fd(const struct gps_data_t *data) { return (int)data->gps_fd; }

/* Replaces the socket of an open session with `fd`, a duplicate of it (the caller
 * closes the old one). */
static inline void locd_set_fd(struct gps_data_t *data, int fd) { data->gps_fd = fd; }

/* The first descriptor select(2) cannot watch: gps_waiting waits with select, and
 * glibc aborts the process when it is given a descriptor at or above this. */
static inline int locd_select_limit(void) { return FD_SETSIZE; }

/* The fix of the last TPV report (fields absent from the report are NaN). */
static inline const struct gps_fix_t *locd_fix(const struct gps_data_t *data) { return &data->fix; }

/* Satellites used in the solution, from the last SKY report (uSat or the used flags). */
static inline int locd_satellites_used(const struct gps_data_t *data) { return data->satellites_used; }

/* Horizontal dilution of precision from the last SKY report; NaN when absent. */
static inline double locd_hdop(const struct gps_data_t *data) { return data->dop.hdop; }

/* Path of the device that shipped the last report (TPV, SKY or DEVICE). */
static inline const char *locd_device_path(const struct gps_data_t *data) { return data->dev.path; }

/* Whether the last DEVICE report said the device is active (non-zero activation time). */
static inline int locd_device_active(const struct gps_data_t *data) {
    return data->dev.activated.tv_sec != 0 || data->dev.activated.tv_nsec != 0;
}

/* Number of devices in the last DEVICES report. */
static inline int locd_device_count(const struct gps_data_t *data) { return data->devices.ndevices; }

/* Path of device `index` (0 ..< locd_device_count) in the last DEVICES report. */
static inline const char *locd_device_list_path(const struct gps_data_t *data, int index) {
    return data->devices.list[index].path;
}

/* gpsd's release from the last VERSION report. */
static inline const char *locd_version_release(const struct gps_data_t *data) { return data->version.release; }

/* The message of the last ERROR report. */
static inline const char *locd_error_message(const struct gps_data_t *data) { return data->error; }

/* Which parts of gps_data_t the last gps_read changed (the *_SET bits). */
static inline gps_mask_t locd_set(const struct gps_data_t *data) { return data->set; }

#endif
