// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// RDMA devices as Linux's sysfs lists them (/sys/class/infiniband), for the ones hwloc cannot place.
// Since Linux 5.10.5 a Soft-RoCE (rdma_rxe) or soft-iWARP (siw) device is virtual: it lives in
// /sys/devices/virtual/infiniband/NAME with no `device` link, and names its network interface in its
// `parent` attribute. hwloc then lists no OpenFabrics OS device for it (or, with
// HWLOC_VIRTUAL_LINUX_OSDEV=1, one under the machine with no locality); the interface's own `device` link
// leads to the PCI function the traffic goes through, which is where the device is. No hwloc here: tests
// give a fake tree (tests/data/sysfs/).

#ifndef NUMABIND_PLANNER_RDMA_SYSFS_H_
#define NUMABIND_PLANNER_RDMA_SYSFS_H_

#include <stdint.h>

#include <string>
#include <vector>

namespace numabind::planner {

/// One RDMA device of ROOT/sys/class/infiniband.
struct SysfsRdma {
  std::string name;    ///< "rxe0"
  std::string netdev;  ///< its `parent` attribute ("eth0"), "" when it has none
  /// The PCI function it is on: its own `device` link's, else its netdev's (ROOT/sys/class/net/NETDEV/
  /// device, which may be a function's child, a virtio device); "" when neither leads to one.
  std::string bus_id;
  std::vector<uint32_t> ports;  ///< ports whose state is ACTIVE or unknown, in order
  std::vector<uint32_t> down;   ///< ports whose state is known and not ACTIVE
};

/// The RDMA devices under `root` ("/" for this machine; a directory holding sys/class/infiniband ...), by
/// name; none when the class directory is missing or unreadable. A device without a readable port is
/// given port 1, the port every device has.
std::vector<SysfsRdma> ReadSysfsRdma(const std::string& root);

/// The PCI bus id ("0000:21:02.0") that `path` (a sysfs device path, links resolved) lies under: its
/// last component that is one; "" for none.
std::string PciFunctionOf(const std::string& path);

}  // namespace numabind::planner

#endif  // NUMABIND_PLANNER_RDMA_SYSFS_H_
