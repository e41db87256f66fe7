/*
 * service_device.h
 *	  The GPU service's device process (service_device.c).
 */
#ifndef GPUSEL_SERVICE_DEVICE_H
#define GPUSEL_SERVICE_DEVICE_H

#include <sys/types.h>

#include "service_shared.h"

extern void GpuselServiceDeviceMain(pid_t supervisor) pg_attribute_noreturn();

#endif							/* GPUSEL_SERVICE_DEVICE_H */
