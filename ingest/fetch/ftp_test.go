package fetch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// ftpServer is a loopback FTP server holding files by path; it answers the commands
// downloadFTP sends, and can be told to refuse EPSV or to cut a transfer short.
type ftpServer struct {
	files    map[string][]byte
	noEPSV   bool
	cutShort bool
	addr     string
	mu       sync.Mutex
	seen     []string
}

func (s *ftpServer) commands() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.seen, "\n")
}

func startFTP(t *testing.T, s *ftpServer) *ftpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s.addr = ln.Addr().String()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *ftpServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(format string, args ...any) { fmt.Fprintf(c, format+"\r\n", args...) }
	var data net.Listener
	defer func() {
		if data != nil {
			data.Close()
		}
	}()
	say("220 loopback FTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		s.mu.Lock()
		s.seen = append(s.seen, line)
		s.mu.Unlock()
		verb, arg, _ := strings.Cut(line, " ")
		switch verb {
		case "USER":
			say("331 password please")
		case "PASS":
			say("230 logged in")
		case "TYPE":
			say("200 binary")
		case "SIZE":
			if b, ok := s.files[arg]; ok {
				say("213 %d", len(b))
			} else {
				say("550 %s: no such file", arg)
			}
		case "EPSV", "PASV":
			if verb == "EPSV" && s.noEPSV {
				say("500 EPSV not understood")
				continue
			}
			data, _ = net.Listen("tcp", "127.0.0.1:0")
			port := data.Addr().(*net.TCPAddr).Port
			if verb == "EPSV" {
				say("229 Entering Extended Passive Mode (|||%d|)", port)
			} else {
				// A private address the client must not use: it dials the control host.
				say("227 Entering Passive Mode (10,0,0,9,%d,%d)", port>>8, port&0xff)
			}
		case "RETR":
			b, ok := s.files[arg]
			if !ok || data == nil {
				say("550 %s: no such file", arg)
				continue
			}
			say("150 opening data connection")
			dc, err := data.Accept()
			if err != nil {
				return
			}
			if s.cutShort {
				b = b[:len(b)/2]
			}
			dc.Write(b)
			dc.Close()
			say("226 transfer complete")
		case "QUIT":
			say("221 bye")
			return
		default:
			say("502 not implemented")
		}
	}
}

func TestFetchFTP(t *testing.T) {
	main := "1|0|S2129|SATAMD2022010700003|SAT|Caf\xe9|^|\r\n"
	archive := zipOf(t, "main.dat", main, "address.dat", "7|0001|Example LLC|^|\r\n")
	for _, tc := range []struct {
		name   string
		server *ftpServer
		src    Source
		want   string // "" when the download is kept; else part of the refusal
	}{
		{"zip member over EPSV", &ftpServer{files: map[string][]byte{"/pub/IBFS.zip": archive}},
			Source{URL: "ftp://%s/pub/IBFS.zip", Kind: ANSI, ZipMember: "main.dat", Dest: "space/fcc_ibfs/main.dat"}, ""},
		{"PASV when EPSV is refused", &ftpServer{files: map[string][]byte{"/pub/IBFS.zip": archive}, noEPSV: true},
			Source{URL: "ftp://%s/pub/IBFS.zip", Kind: ZIP, Dest: "IBFS.zip"}, ""},
		{"no such file", &ftpServer{files: map[string][]byte{}},
			Source{URL: "ftp://%s/pub/IBFS.zip", Kind: ZIP, Dest: "IBFS.zip"}, "answered SIZE with 550"},
		{"cut short", &ftpServer{files: map[string][]byte{"/pub/IBFS.zip": archive}, cutShort: true},
			Source{URL: "ftp://%s/pub/IBFS.zip", Kind: ZIP, Dest: "IBFS.zip"}, "truncated"},
		{"wrong member kind", &ftpServer{files: map[string][]byte{"/pub/IBFS.zip": archive}},
			Source{URL: "ftp://%s/pub/IBFS.zip", Kind: TEXT, ZipMember: "main.dat", Dest: "main.dat"}, "not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := startFTP(t, tc.server)
			src := tc.src
			src.URL = fmt.Sprintf(src.URL, srv.addr)
			raw := t.TempDir()
			res, err := Fetch(context.Background(), raw, src, Options{})
			if tc.want != "" {
				if err == nil || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want a refusal containing %q", err, tc.want)
				}
				if _, serr := os.Stat(filepath.Join(raw, src.Dest)); serr == nil {
					t.Error("the refused download was kept")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(res.Path)
			want := string(archive)
			if src.ZipMember != "" {
				want = main
			}
			if string(got) != want {
				t.Errorf("got %q", got)
			}
			if cmds := srv.commands(); !strings.Contains(cmds, "USER anonymous") {
				t.Errorf("commands %q", cmds)
			}
		})
	}
}
