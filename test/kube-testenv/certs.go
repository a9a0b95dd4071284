package main

import (
	"crypto/rand"
	"encoding/base64"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki holds the files the API server and its clients need. They are made once per
// state directory and reused, so a restarted server keeps its kubeconfig valid.
type pki struct {
	CAFile, ServingCertFile, ServingKeyFile string
	ServiceAccountKeyFile, TokenFile         string
	Token                                   string
}

func ensurePKI(dir string) (*pki, error) {
	p := &pki{
		CAFile:                filepath.Join(dir, "ca.crt"),
		ServingCertFile:       filepath.Join(dir, "apiserver.crt"),
		ServingKeyFile:        filepath.Join(dir, "apiserver.key"),
		ServiceAccountKeyFile: filepath.Join(dir, "sa.key"),
		TokenFile:             filepath.Join(dir, "tokens.csv"),
	}
	if token, err := os.ReadFile(filepath.Join(dir, "admin.token")); err == nil {
		p.Token = string(token)
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTemplate := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tidemark-testenv-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	servingKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	servingTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.0.0.1")},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
	}
	servingDER, err := x509.CreateCertificate(rand.Reader, servingTemplate, caCert, &servingKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	tokenBytes := make([]byte, 24)
	if _, err := rand.Read(tokenBytes); err != nil {
		return nil, err
	}
	p.Token = hex.EncodeToString(tokenBytes)

	files := []struct {
		path string
		data []byte
	}{
		{p.CAFile, pemBlock("CERTIFICATE", caDER)},
		{p.ServingCertFile, pemBlock("CERTIFICATE", servingDER)},
		{p.ServingKeyFile, pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(servingKey))},
		{p.ServiceAccountKeyFile, pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey))},
		// The admin identity: a static token in system:masters, as envtest does.
		{p.TokenFile, []byte(fmt.Sprintf("%s,admin,admin-uid,\"system:masters\"\n", p.Token))},
		// Written last: its presence marks the directory as complete.
		{filepath.Join(dir, "admin.token"), []byte(p.Token)},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func pemBlock(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}

func base64Std(data []byte) string {
	return base64.StdEncoding.EncodeToString(data)
}
