package controlplane

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// certValidity covers the life of a test garden and of a local garden left
// running for a long while; nothing rotates these certificates.
const certValidity = 365 * 24 * time.Hour

// CertAuthority is a CA generated for one garden or node, kept in memory to
// sign the certificates that its components present.
type CertAuthority struct {
	cert *x509.Certificate
	key  crypto.Signer
	// certPEM is the CA certificate, for CA bundles and --*-ca-file flags.
	certPEM []byte
	// keyPEM is the CA's private key, for components that sign certificates
	// themselves (kube-controller-manager's --cluster-signing-key-file).
	keyPEM []byte
}

// NewCertAuthority generates a self-signed CA named commonName, with an
// ECDSA P-256 key, valid for ten years.
func NewCertAuthority(commonName string) (*CertAuthority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the key of CA %s: %w", commonName, err)
	}
	cert, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: commonName}, key)
	if err != nil {
		return nil, fmt.Errorf("self-signing CA %s: %w", commonName, err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, fmt.Errorf("encoding the key of CA %s: %w", commonName, err)
	}
	return &CertAuthority{
		cert:    cert,
		key:     key,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: cert.Raw}),
		keyPEM:  keyPEM,
	}, nil
}

// CertPEM returns the CA certificate as PEM.
func (ca *CertAuthority) CertPEM() []byte { return ca.certPEM }

// KeyPEM returns the CA's private key as PEM.
func (ca *CertAuthority) KeyPEM() []byte { return ca.keyPEM }

// CertRequest describes a leaf certificate signed by a CertAuthority.
type CertRequest struct {
	// CommonName is the subject's CN, the user name of a client certificate.
	CommonName string
	// Organizations is the subject's O, the groups of a client certificate
	// (for example system:nodes or system:masters).
	Organizations []string
	// DNSNames and IPs make a serving certificate; without them the
	// certificate is for client authentication only.
	DNSNames []string
	IPs      []net.IP
}

// Issue signs a new ECDSA P-256 key pair for req, valid for certValidity,
// and returns the certificate and key as PEM.
func (ca *CertAuthority) Issue(req CertRequest) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating the key of %s: %w", req.CommonName, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	usage := x509.ExtKeyUsageClientAuth
	if len(req.DNSNames) > 0 || len(req.IPs) > 0 {
		usage = x509.ExtKeyUsageServerAuth
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: req.CommonName, Organization: req.Organizations},
		DNSNames:     req.DNSNames,
		IPAddresses:  req.IPs,
		// A minute of slack for clocks of processes that read it at once.
		NotBefore:   now.Add(-time.Minute),
		NotAfter:    now.Add(certValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, nil, fmt.Errorf("signing the certificate of %s: %w", req.CommonName, err)
	}
	keyPEM, err = keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: der}), keyPEM, nil
}

// writeFiles writes each name's content into dir, readable by its owner
// only (some are private keys).
func writeFiles(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}
