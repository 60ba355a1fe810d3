package node

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// loadPair reads name's certificate and key from dir the way the components
// do, which also fails when the key is not the certificate's.
func loadPair(t *testing.T, dir, name string) *x509.Certificate {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key"))
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return pair.Leaf
}

func TestWritePKI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	if err := writePKI(dir, "node-a"); err != nil {
		t.Fatal(err)
	}

	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{
		"apiserver-kubelet-client.crt", "apiserver-kubelet-client.key",
		"ca.crt", "ca.key",
		"kube-controller-manager.crt", "kube-controller-manager.key",
		"kube-proxy.crt", "kube-proxy.key",
		"kube-scheduler.crt", "kube-scheduler.key",
		"kubelet.crt", "kubelet.key",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("files %q, want %q", names, want)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	for _, name := range names {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		wantMode := os.FileMode(0o644)
		if filepath.Ext(name) == ".key" {
			wantMode = 0o600
		}
		if fi.Mode().Perm() != wantMode {
			t.Errorf("%s has mode %v, want %v", name, fi.Mode().Perm(), wantMode)
		}
	}

	// kube-controller-manager signs kubelets' CSRs with ca.key, so it must
	// be the key of ca.crt.
	ca := loadPair(t, dir, "ca")
	if !ca.IsCA || ca.Subject.CommonName != "graft-local-node-ca" {
		t.Errorf("ca.crt: IsCA %v, CN %q", ca.IsCA, ca.Subject.CommonName)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)

	for file, subject := range map[string]struct {
		user   string
		groups []string
	}{
		"kubelet":                  {"system:node:node-a", []string{"system:nodes"}},
		"kube-controller-manager":  {"system:kube-controller-manager", nil},
		"kube-scheduler":           {"system:kube-scheduler", nil},
		"kube-proxy":               {"system:kube-proxy", nil},
		"apiserver-kubelet-client": {"graft:apiserver-kubelet-client", []string{"system:masters"}},
	} {
		cert := loadPair(t, dir, file)
		if cert.Subject.CommonName != subject.user || !slices.Equal(cert.Subject.Organization, subject.groups) {
			t.Errorf("%s: CN %q O %q, want CN %q O %q", file, cert.Subject.CommonName, cert.Subject.Organization, subject.user, subject.groups)
		}
		if len(cert.DNSNames) != 0 || len(cert.IPAddresses) != 0 {
			t.Errorf("%s: SANs %v %v, want none", file, cert.DNSNames, cert.IPAddresses)
		}
		if !slices.Equal(cert.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}) {
			t.Errorf("%s: extended key usage %v, want client authentication only", file, cert.ExtKeyUsage)
		}
		if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("%s does not verify against ca.crt: %v", file, err)
		}
	}
}
