// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Which device each local rank drives: NUMABIND_DEVICES = auto | none | comma list of PCI bus ids.
// auto finds accelerators by PCI vendor and class, ordered by bus id; with a numeric CUDA_VISIBLE_DEVICES
// (NVIDIA) or ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES (AMD) in the launcher's environment, local rank i
// uses the i-th visible device. Rank r uses device r mod count (PlanBasis slots).

#ifndef NUMABIND_PLANNER_DEVICES_H_
#define NUMABIND_PLANNER_DEVICES_H_

#include <string>
#include <vector>

#include "config/grammar.h"
#include "planner/topology.h"

namespace numabind::planner {

using config::DeviceMode;

struct DeviceSpec {
  config::DeviceMode mode = config::DeviceMode::kAuto;
  std::vector<std::string> bus_ids;  ///< kList: normalized ("0000:34:00.0"), in the order given
};

/// The spec of a parsed NUMABIND_DEVICES (config::ParseDevicesText): its bus ids normalized.
DeviceSpec DeviceSpecOf(const config::Devices& devices);

/// "0000:34:00.0": a bus id as sysfs and hwloc write it.
std::string FormatBusId(const config::BusId& id);

/// "34:00.0" or "0000:34:00.0" (any case) -> "0000:34:00.0" (config::ParseBusId, then FormatBusId). False
/// when it is not a PCI bus id.
bool NormalizeBusId(const std::string& text, std::string* out);

/// Whether `auto` picks this device: NVIDIA VGA/3D controllers, AMD Instinct (display-other or processing
/// accelerator class), Intel data-centre GPUs (display-other/3D), AMD and Intel VGA controllers with
/// evidence of compute (a compute OS device under them, such as CUDA, NVML, RSMI, OpenCL or Level Zero, but
/// not a DRM card0; or a PCIe link of 4 GB/s or more: MI50/MI60 report the VGA class; a management VGA such
/// as the ES1000 and integrated graphics have neither), Habana Gaudi, and
/// processing accelerators of a few AI vendors. Never ASPEED, Matrox or other BMC VGA.
bool IsAccelerator(const PciDevice& d);

/// The devices ranks use, in local-rank order. auto: accelerators of the topology (io_loaded), filtered
/// and ordered by the *_VISIBLE_DEVICES variables of `env` (may be nullptr); an empty result means none.
/// kList: the listed devices; one that the topology does not have is an error when the topology knows its
/// PCI devices, and a device of unknown locality when it does not (synthetic topologies, no I/O data).
bool SelectDevices(const Topology& topo, const DeviceSpec& spec, const char* const* env,
                   std::vector<PciDevice>* out, std::string* err);

/// auto: drops the devices near no allowed CPU (another job's socket, an allocation that left their node
/// out); with none left, auto plans the CPUs alone rather than failing (issue 17). Devices of unknown
/// locality stay.
void DropFarDevices(const Topology& topo, std::vector<PciDevice>* devices);

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_DEVICES_H_
