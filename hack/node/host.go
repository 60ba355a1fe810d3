package node

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
)

// Kernel settings the node changes: kubelet sets its "kernel tunables" at
// start (it would refuse to start with protectKernelDefaults instead), the
// bridge plugin turns on forwarding for its gateway, and Up turns on
// bridge-nf-call-iptables for kube-proxy. Down puts the old values back.
var sysctls = []string{
	"vm/overcommit_memory",
	"vm/panic_on_oom",
	"kernel/panic",
	"kernel/panic_on_oops",
	"kernel/keys/root_maxkeys",
	"kernel/keys/root_maxbytes",
	"net/ipv4/ip_forward",
	"net/ipv4/conf/all/route_localnet",
	"net/bridge/bridge-nf-call-iptables",
	"net/bridge/bridge-nf-call-ip6tables",
}

// Directories outside the node's own that kubelet, containerd and the CNI
// library create at fixed places: kubelet's device plugin socket, the
// per-container log links, the shims' sockets and CNI's result cache. Down
// removes those that did not exist before Up.
var hostDirs = []string{
	"/var/lib/kubelet",
	"/var/log/containers",
	"/run/containerd",
	"/var/lib/cni",
}

// hostState is what the machine looked like before the first Up, so that Down
// can restore it. It is written once: an Up after a crash must not record the
// crashed node's changes as the machine's own.
type hostState struct {
	Sysctls map[string]string `json:"sysctls"`
	// NewDirs are the hostDirs that did not exist.
	NewDirs []string `json:"newDirs"`
}

func saveHostState(l layout) error {
	path := l.path("host-state.json")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	st := hostState{Sysctls: map[string]string{}}
	for _, s := range sysctls {
		if v, err := os.ReadFile(filepath.Join("/proc/sys", s)); err == nil {
			st.Sysctls[s] = strings.TrimSpace(string(v))
		}
	}
	for _, d := range hostDirs {
		if _, err := os.Stat(d); os.IsNotExist(err) {
			st.NewDirs = append(st.NewDirs, d)
		}
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, data)
}

func writeSysctl(name, value string) error {
	if err := os.WriteFile(filepath.Join("/proc/sys", name), []byte(value), 0o644); err != nil {
		return fmt.Errorf("setting %s=%s: %w", strings.ReplaceAll(name, "/", "."), value, err)
	}
	return nil
}

// machineFree fails when another local node (or what it left) holds the
// machine-wide parts this node needs.
func machineFree() error {
	if _, err := os.Stat(filepath.Join("/sys/class/net", bridgeName)); err == nil {
		return fmt.Errorf("bridge %s exists: another local node runs on this machine (hack/local-garden.sh down with its GRAFT_GARDEN_DIR stops it; a stale bridge goes with ip link del %s)", bridgeName, bridgeName)
	}
	for _, root := range cgroupRoots() {
		if _, err := os.Stat(filepath.Join(root, "kubepods")); err == nil {
			return fmt.Errorf("cgroup %s exists: another kubelet runs on this machine, or one left its cgroups", filepath.Join(root, "kubepods"))
		}
	}
	return nil
}

// ensureBridge creates the node's bridge with the node's address. The bridge
// CNI plugin would create it with the first pod, but kubelet needs its node
// address before that.
func ensureBridge() error {
	if _, err := os.Stat(filepath.Join("/sys/class/net", bridgeName)); os.IsNotExist(err) {
		if err := run("ip", "link", "add", bridgeName, "type", "bridge"); err != nil {
			return err
		}
	}
	var addrs strings.Builder
	cmd := exec.Command("ip", "-4", "-o", "addr", "show", "dev", bridgeName)
	cmd.Stdout = &addrs
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("listing the addresses of %s: %w", bridgeName, err)
	}
	if !strings.Contains(addrs.String(), " "+nodeIP+"/") {
		if err := run("ip", "addr", "add", nodeIP+"/24", "dev", bridgeName); err != nil {
			return err
		}
	}
	return run("ip", "link", "set", bridgeName, "up")
}

// archiveImageName is the name containerd gives the image of an OCI archive
// on import: the io.containerd.image.name annotation of its index, or else
// the OCI reference name when it is a full reference.
func archiveImageName(path string) (string, error) {
	if path == "" {
		return "", errors.New("no image archive given")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("opening the image archive: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	// ctr imports gzip-compressed archives too.
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", path, err)
		}
		r = gz
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return "", fmt.Errorf("%s is not an OCI image archive: it has no index.json", path)
		}
		if err != nil {
			return "", fmt.Errorf("reading %s: %w", path, err)
		}
		if filepath.Clean(h.Name) != "index.json" {
			continue
		}
		var index struct {
			Manifests []struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"manifests"`
		}
		if err := json.NewDecoder(tr).Decode(&index); err != nil {
			return "", fmt.Errorf("reading index.json of %s: %w", path, err)
		}
		for _, m := range index.Manifests {
			if n := m.Annotations["io.containerd.image.name"]; n != "" {
				return n, nil
			}
			if n := m.Annotations["org.opencontainers.image.ref.name"]; strings.Contains(n, "/") {
				return n, nil
			}
		}
		return "", fmt.Errorf("the index of %s names no image (no io.containerd.image.name annotation)", path)
	}
}

// Down stops the node in dir and removes what it left on this machine. admin,
// when the garden's kube-apiserver still runs, lets kubelet stop the pods
// itself first. Each step runs even when an earlier one failed: a half
// cleaned machine is worse than a reported error.
func Down(ctx context.Context, dir string, admin *rest.Config, logw io.Writer) error {
	if logw == nil {
		logw = io.Discard
	}
	if !Exists(dir) {
		return nil
	}
	l := layout{dir: dir}
	var bins Binaries
	if data, err := os.ReadFile(l.path("binaries.json")); err == nil {
		_ = json.Unmarshal(data, &bins)
	}
	var errs []error
	fmt.Fprintf(logw, "node: stopping %s\n", Name)
	// No new pods while the node empties.
	errs = append(errs, stop(dir, "kube-scheduler", 10*time.Second), stop(dir, "kube-controller-manager", 10*time.Second))
	if _, ok := alive(dir, "kubelet"); ok && admin != nil {
		if err := drainPods(ctx, admin, logw); err != nil {
			fmt.Fprintf(logw, "node: pods not stopped by kubelet (%v); removing them behind its back\n", err)
		}
	}
	errs = append(errs, stop(dir, "kube-proxy", 10*time.Second))
	if bins.KubeProxy != "" {
		// kube-proxy removes its own chains from iptables and ip6tables.
		errs = append(errs, runLogged(l.path("kube-proxy.log"), bins.KubeProxy, "--cleanup", "--config="+l.proxyConfig()))
	}
	errs = append(errs, stop(dir, "kubelet", 20*time.Second))
	// A component its pid file does not name (a second start, a lost file)
	// would keep its port and its writes to the garden after Down.
	for _, bin := range []string{bins.KubeScheduler, bins.KubeControllerManager, bins.KubeProxy, bins.Kubelet} {
		for _, pid := range processesRunning(bin, dir) {
			fmt.Fprintf(logw, "node: stopping %s (pid %d), which no pid file names\n", filepath.Base(bin), pid)
			errs = append(errs, terminate(pid, dir, 10*time.Second))
		}
	}

	// Whatever kubelet did not stop: every process in its pods' cgroups, then
	// containerd, then the shims it started, which outlive it.
	killCgroupProcesses()
	errs = append(errs, stop(dir, "containerd", 10*time.Second))
	for _, pid := range processesMentioning(l.containerdSocket()) {
		errs = append(errs, terminate(pid, l.containerdSocket(), 5*time.Second))
	}

	// Mounts below the node's directory: container root filesystems, the
	// pods' network namespaces and shm, kubelet's volumes and its own
	// bind mount of its root directory.
	errs = append(errs, unmountBelow(dir))
	errs = append(errs, removeCgroups())
	errs = append(errs, sweepIPTables())
	if _, err := os.Stat(filepath.Join("/sys/class/net", bridgeName)); err == nil {
		errs = append(errs, run("ip", "link", "del", bridgeName))
	}

	var st hostState
	if data, err := os.ReadFile(l.path("host-state.json")); err == nil {
		if err := json.Unmarshal(data, &st); err != nil {
			errs = append(errs, fmt.Errorf("reading the saved host state: %w", err))
		}
	}
	// Names sorted for a stable order of restores and messages.
	names := make([]string, 0, len(st.Sysctls))
	for n := range st.Sysctls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if cur, err := os.ReadFile(filepath.Join("/proc/sys", n)); err == nil && strings.TrimSpace(string(cur)) != st.Sysctls[n] {
			errs = append(errs, writeSysctl(n, st.Sysctls[n]))
		}
	}
	removeContainerLogLinks(l.podLogs())
	for _, d := range st.NewDirs {
		errs = append(errs, os.RemoveAll(d))
	}
	for _, d := range l.runtimeDirs() {
		errs = append(errs, os.RemoveAll(d))
	}
	if err := errors.Join(errs...); err != nil {
		// The saved state stays, so that the next down or up tries again and
		// still knows the machine's own settings.
		return fmt.Errorf("stopping the node: %w", err)
	}
	for _, f := range []string{"host-state.json", "binaries.json"} {
		if err := os.Remove(l.path(f)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	fmt.Fprintf(logw, "node: stopped and cleaned up; logs kept in %s\n", dir)
	return nil
}

// cgroupRoots are the mounted cgroup hierarchies (v1 controllers, the named
// systemd one and the v2 one of a hybrid setup), each of which may hold a
// kubepods tree that kubelet and runc created.
func cgroupRoots() []string {
	entries, err := os.ReadDir("/sys/fs/cgroup")
	if err != nil {
		return nil
	}
	var roots []string
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.procs"); err == nil {
		roots = append(roots, "/sys/fs/cgroup") // a pure cgroup v2 machine
	}
	for _, e := range entries {
		p := filepath.Join("/sys/fs/cgroup", e.Name())
		if _, err := os.Stat(filepath.Join(p, "cgroup.procs")); err == nil {
			roots = append(roots, p)
		}
	}
	return roots
}

// killCgroupProcesses kills every process in a kubepods cgroup: containers
// kubelet did not stop. Only this node's kubelet creates kubepods here.
func killCgroupProcesses() {
	for range 3 {
		found := false
		for _, root := range cgroupRoots() {
			_ = filepath.WalkDir(filepath.Join(root, "kubepods"), func(p string, d os.DirEntry, err error) error {
				if err != nil || !d.IsDir() {
					return nil
				}
				data, err := os.ReadFile(filepath.Join(p, "cgroup.procs"))
				if err != nil {
					return nil
				}
				for _, f := range strings.Fields(string(data)) {
					var pid int
					if _, err := fmt.Sscan(f, &pid); err == nil && pid > 0 {
						_ = syscall.Kill(pid, syscall.SIGKILL)
						found = true
					}
				}
				return nil
			})
		}
		if !found {
			return
		}
		time.Sleep(time.Second)
	}
}

// removeCgroups removes the kubepods trees, deepest first (a cgroup is
// removed with rmdir, which fails while it has children or processes).
func removeCgroups() error {
	var errs []error
	for _, root := range cgroupRoots() {
		var dirs []string
		_ = filepath.WalkDir(filepath.Join(root, "kubepods"), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			var err error
			// A cgroup whose last process just died can be busy for a moment.
			for range 20 {
				if err = syscall.Rmdir(dirs[i]); err == nil || errors.Is(err, syscall.ENOENT) {
					err = nil
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("removing cgroup %s: %w", dirs[i], err))
			}
		}
	}
	return errors.Join(errs...)
}

// unmountBelow unmounts every mount point below dir, deepest first, and
// detaches those that stay busy.
func unmountBelow(dir string) error {
	var errs []error
	for range 3 {
		points := mountsBelow(dir)
		if len(points) == 0 {
			return nil
		}
		errs = nil
		for _, p := range points {
			if err := syscall.Unmount(p, 0); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
				if err := syscall.Unmount(p, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
					errs = append(errs, fmt.Errorf("unmounting %s: %w", p, err))
				}
			}
		}
	}
	if points := mountsBelow(dir); len(points) > 0 {
		errs = append(errs, fmt.Errorf("still mounted: %s", strings.Join(points, ", ")))
	}
	return errors.Join(errs...)
}

// mountsBelow lists the mount points at or below dir from
// /proc/self/mountinfo, deepest (and, among equals, latest) first.
func mountsBelow(dir string) []string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	dir = filepath.Clean(dir)
	var points []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		p := unescapeMountPath(f[4])
		if p == dir || strings.HasPrefix(p, dir+"/") {
			points = append(points, p)
		}
	}
	// Later lines were mounted later; unmount in reverse, longest path first.
	for i, j := 0, len(points)-1; i < j; i, j = i+1, j-1 {
		points[i], points[j] = points[j], points[i]
	}
	sort.SliceStable(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	return points
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// sweepIPTables removes KUBE-* chains that kube-proxy's own cleanup left (it
// did not run, or kubelet made some), in iptables and ip6tables: the jumps to
// them from other chains, then the chains, in one iptables-restore per family
// so that no half-removed state is ever applied.
func sweepIPTables() error {
	var errs []error
	for _, family := range []string{"iptables", "ip6tables"} {
		if _, err := exec.LookPath(family + "-save"); err != nil {
			continue
		}
		script, ok := kubeChainRemoval(family)
		if !ok {
			continue
		}
		restore := exec.Command(family+"-restore", "--noflush")
		restore.Stdin = strings.NewReader(script)
		if out, err := restore.CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("removing KUBE chains with %s-restore: %w: %s", family, err, strings.TrimSpace(string(out))))
		}
	}
	return errors.Join(errs...)
}

// kubeChainRemoval builds the iptables-restore input that removes every
// KUBE-* chain of family and every rule that jumps to one; ok is false when
// there are none.
func kubeChainRemoval(family string) (string, bool) {
	out, err := exec.Command(family + "-save").Output()
	if err != nil {
		return "", false
	}
	return kubeChainRemovalScript(string(out))
}

// kubeChainRemovalScript is kubeChainRemoval's pure part: from
// iptables-save output to iptables-restore --noflush input.
func kubeChainRemovalScript(saved string) (string, bool) {
	var b strings.Builder
	found := false
	var table string
	var chains, deletes []string
	flush := func() {
		if table == "" || len(chains) == 0 {
			return
		}
		found = true
		fmt.Fprintf(&b, "*%s\n", table)
		// Declaring a chain in a --noflush restore empties it, so the chains
		// can then go whatever jumps they hold among themselves.
		for _, c := range chains {
			fmt.Fprintf(&b, ":%s - [0:0]\n", c)
		}
		for _, d := range deletes {
			fmt.Fprintf(&b, "%s\n", d)
		}
		for _, c := range chains {
			fmt.Fprintf(&b, "-X %s\n", c)
		}
		b.WriteString("COMMIT\n")
	}
	for _, line := range strings.Split(saved, "\n") {
		switch {
		case strings.HasPrefix(line, "*"):
			table, chains, deletes = strings.TrimPrefix(line, "*"), nil, nil
		case strings.HasPrefix(line, ":KUBE-"):
			chains = append(chains, strings.Fields(line[1:])[0])
		case strings.HasPrefix(line, "-A ") && !strings.HasPrefix(line, "-A KUBE-") && strings.Contains(line, " -j KUBE-"):
			deletes = append(deletes, "-D "+strings.TrimPrefix(line, "-A "))
		case line == "COMMIT":
			flush()
			table = ""
		}
	}
	return b.String(), found
}

// removeContainerLogLinks removes the links kubelet made in
// /var/log/containers to this node's pod logs.
func removeContainerLogLinks(podLogs string) {
	entries, err := os.ReadDir("/var/log/containers")
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join("/var/log/containers", e.Name())
		if target, err := os.Readlink(p); err == nil && strings.HasPrefix(target, podLogs+"/") {
			_ = os.Remove(p)
		}
	}
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// runLogged runs a command with its output appended to logPath.
func runLogged(logPath, name string, args ...string) error {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w (log: %s)", filepath.Base(name), strings.Join(args, " "), err, logPath)
	}
	return nil
}
