package access

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/citeq/citeq/state"
)

// OperatorOwner is the owner recorded on an operator key (citeq keys list shows it).
const OperatorOwner = "operator (citeq serve --operator-key)"

// OperatorKey is the key of the person who runs the server: its queries are not limited by
// the free quota of the server that names it (Gate.Operator). Every other caller keeps the
// quota: the key is one row of the key store like any other, on the free plan, so a server
// started without --operator-key limits it as it limits any free key.
type OperatorKey struct {
	// Secret is the key itself (cq_<id>_<random>), as written to File.
	Secret string
	Key    state.Key
	// File is where the key is kept (mode 0600: readable by its owner alone).
	File string
	// Created reports whether the key was made now (else it was read from File).
	Created bool
	// Notice, when not empty, says that File could be read by others and is now its
	// owner's alone.
	Notice string
}

// LoadOperatorKey returns the operator key kept in file: the key the file holds while it is
// a live key of store, else a new key, written to the file (atomically, mode 0600). A file
// holding an unknown or revoked key (a store started afresh, a key revoked with citeq keys
// revoke) is replaced; a file that cannot be read or written is an error, and so is one that
// others than its owner could have written (ReadKeyFile: its key is not used, lest someone
// plant one). A file others could read is made its owner's alone, and Notice says so.
func LoadOperatorKey(ctx context.Context, store state.Store, file string) (OperatorKey, error) {
	ok := OperatorKey{File: file}
	kf, err := ReadKeyFile(file, true)
	ok.Notice = kf.Notice
	switch {
	case err == nil:
		secret := kf.Secret
		key, err := store.LookupKey(ctx, secret)
		switch {
		case err == nil:
			ok.Secret, ok.Key = secret, key
			return ok, nil
		case !errors.Is(err, state.ErrNotFound) && !errors.Is(err, state.ErrRevoked):
			return ok, fmt.Errorf("operator key: look up the key in %s: %w", file, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return ok, fmt.Errorf("operator key: %w", err)
	}
	secret, key, err := store.CreateKey(ctx, state.PlanFree, OperatorOwner)
	if err != nil {
		return ok, fmt.Errorf("operator key: create: %w", err)
	}
	if err := writePrivate(file, secret+"\n"); err != nil {
		// The key is of no use to anyone once its secret is lost: revoke it.
		_ = store.RevokeKey(ctx, key.ID)
		return ok, fmt.Errorf("operator key: %w", err)
	}
	ok.Secret, ok.Key, ok.Created = secret, key, true
	return ok, nil
}

// writePrivate writes data to file through a temporary file in the same directory, readable
// and writable by the owner alone, renamed into place.
func writePrivate(file, data string) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".operator-key-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), file)
}
