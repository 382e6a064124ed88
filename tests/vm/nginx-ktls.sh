#!/bin/sh
# nginx-ktls.sh - nginx 1.22 with `ssl_conf_command Options KTLS;` and
# `sendfile on;` serves a 16 MiB random file over TLS 1.2
# (ECDHE-RSA-AES128-GCM-SHA256, ECDHE-RSA-AES256-GCM-SHA384) and TLS 1.3
# (TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384) to curl on 127.0.0.1.
# The bytes curl receives must hash to the file's sha256, the kernel must
# have done the record encryption (/proc/net/tls_stat TlsTxSw), and the
# records must have gone through gcm-aes-gpu: with the helper on the ring
# (ring_gcm_requests), without it on the fallback, never the other way.
#
# OpenSSL 3.0 hands only TLS 1.2 receive keys to the kernel, so for TLS 1.2
# curl also PUTs 1 MiB to a WebDAV location (nginx reads and stores the
# body): the stored file must hash to what was sent, TlsRxSw must move and
# the decryptions must take our driver too.
#
# Why the counter bounds are what they are: a TLS record carries at most
# 16 KiB and the kernel encrypts or decrypts each record with one AEAD
# request, so 16 MiB sent take at least 1024 requests and 1 MiB received at
# least 64, all far above ring_min_bytes; the handshake and the response
# headers add a few small ones, so the bounds are lower bounds, and with the
# helper only requests shorter than ring_min_bytes may take the fallback
# (under dispatch=auto, run so by dispatch.sh, also those the policy gives
# to the CPU, and only those).  The client
# (curl) does its AES in userspace OpenSSL and never reaches our driver.
. "$(dirname "$0")/lib.sh"

d=$TMP/nginx
port=8443
url=https://127.0.0.1:$port
mkdir -p "$d/www" "$d/up" "$d/body"
chown 33:33 "$d/up" "$d/body"
chmod 755 "$d" "$d/www"
cleanup() {
	[ -s "$d/nginx.pid" ] && kill "$(cat "$d/nginx.pid")" 2>/dev/null
	sleep 0.2
	restore_deadline
	rm -rf "$d"
}
trap cleanup EXIT
patient_deadline

/sbin/modprobe tls || { fail "modprobe tls"; finish; exit; }
[ -r /proc/net/tls_stat ] || { fail "no /proc/net/tls_stat"; finish; exit; }

# tls_stat FIELD: a counter of /proc/net/tls_stat.
tls_stat() { awk -v f="$1" '$1 == f { print $2 }' /proc/net/tls_stat; }

# The aead driver kTLS gets is the one a lookup of gcm(aes) returns.
best=$(best_driver 'gcm(aes)')
[ "$best" = gcm-aes-gpu ] && pass "gcm(aes) resolves to gcm-aes-gpu for kTLS" ||
	fail "gcm(aes) resolves to '$best', not gcm-aes-gpu"

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
	-keyout "$d/key.pem" -out "$d/cert.pem" 2>"$d/req.err" ||
	{ cat "$d/req.err"; fail "openssl req (self-signed cert)"; finish; exit; }
size=$((16 * 1024 * 1024))
randfile "$d/www/file" $size
chmod 644 "$d/www/file"
want=$(sha256sum <"$d/www/file" | cut -d' ' -f1)

cat >"$d/nginx.conf" <<EOF
user www-data;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log notice;
events { worker_connections 64; }
http {
	include /etc/nginx/mime.types;
	access_log off;
	sendfile on;
	client_body_temp_path $d/body;
	server {
		listen 127.0.0.1:$port ssl;
		ssl_certificate $d/cert.pem;
		ssl_certificate_key $d/key.pem;
		ssl_protocols TLSv1.2 TLSv1.3;
		ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384;
		ssl_conf_command Options KTLS;
		root $d/www;
		location /up/ {
			root $d;
			dav_methods PUT;
			client_max_body_size 4m;
		}
	}
}
EOF
nginx -c "$d/nginx.conf" -p "$d" 2>"$d/start.err" ||
	{ cat "$d/start.err"; fail "nginx did not start"; finish; exit; }
i=0
until [ -s "$d/nginx.pid" ] && curl -sk -o /dev/null "$url/" 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 100 ] || { cat "$d/error.log"; fail "nginx does not answer on $url"; finish; exit; }
	sleep 0.1
done
pass "nginx $(nginx -v 2>&1 | sed 's|.*/||') listening on $url with Options KTLS, sendfile on"

# gcm_path SNAP MIN WHAT: at least MIN AEAD requests since SNAP, all on the
# path the mode says.
gcm_path() {
	_ok=0
	if dispatch_auto; then
		expect_routed "$1" ring_gcm_requests "$2" "$3" || _ok=1
	elif with_helper; then
		expect_min "$1" ring_gcm_requests "$2" "$3" || _ok=1
		# Only records under ring_min_bytes (response headers, the
		# PUT's answer) may take the fallback.
		delta "$1" fallback_small; _s=$D
		expect_delta "$1" fallback_requests "$_s" || _ok=1
	else
		expect_min "$1" fallback_requests "$2" "$3" || _ok=1
		expect_delta "$1" ring_requests 0 || _ok=1
		expect_delta "$1" ring_gcm_requests 0 || _ok=1
	fi
	return $_ok
}

# fetch PROTO CIPHER: GET the file with exactly that protocol and cipher.
fetch() {
	case $1 in
	1.2) set -- "$1" "$2" --tlsv1.2 --tls-max 1.2 --ciphers "$2" ;;
	1.3) set -- "$1" "$2" --tlsv1.3 --tls-max 1.3 --tls13-ciphers "$2" ;;
	esac
	_p=$1 _c=$2
	shift 2
	snap g
	tx0=$(tls_stat TlsTxSw)
	got=$(curl -sSk -v "$@" "$url/file" 2>"$d/curl.err" | sha256sum | cut -d' ' -f1)
	tx=$(( $(tls_stat TlsTxSw) - tx0 ))
	ok=1
	grep -q "SSL connection using TLSv$_p / $_c" "$d/curl.err" ||
		{ grep 'SSL connection' "$d/curl.err"; note "not TLS $_p $_c"; ok=0; }
	[ "$got" = "$want" ] || { tail -n 5 "$d/curl.err"; note "sha256 $got, want $want"; ok=0; }
	[ "$tx" -ge 1 ] || { note "TlsTxSw moved by $tx: nginx did not use kTLS TX"; ok=0; }
	gcm_path g $((size / 16384)) "TLS $_p $_c GET" || ok=0
	delta g ring_gcm_requests; r=$D
	delta g fallback_requests; f=$D
	[ $ok = 1 ] &&
		pass "TLS $_p $_c: 16 MiB = sha256, TlsTxSw +$tx, gcm ring +$r fallback +$f" ||
		fail "TLS $_p $_c GET"
}

# put CIPHER: PUT 1 MiB over TLS 1.2, where the kernel decrypts it.
put() {
	randfile "$d/body.in" $((1024 * 1024))
	sent=$(sha256sum <"$d/body.in" | cut -d' ' -f1)
	rm -f "$d/up/body"
	snap p
	rx0=$(tls_stat TlsRxSw)
	code=$(curl -sSk -o /dev/null -w '%{http_code}' --tlsv1.2 --tls-max 1.2 \
		--ciphers "$1" -T "$d/body.in" "$url/up/body" 2>"$d/curl.err")
	rx=$(( $(tls_stat TlsRxSw) - rx0 ))
	ok=1
	case $code in 201|204) ;; *) cat "$d/curl.err" "$d/error.log"; note "PUT answered $code"; ok=0 ;; esac
	stored=$(sha256sum <"$d/up/body" 2>/dev/null | cut -d' ' -f1)
	[ "$stored" = "$sent" ] || { note "stored sha256 '$stored', sent $sent"; ok=0; }
	[ "$rx" -ge 1 ] || { note "TlsRxSw moved by $rx: nginx did not use kTLS RX"; ok=0; }
	gcm_path p 64 "TLS 1.2 $1 PUT" || ok=0
	delta p ring_gcm_requests; r=$D
	delta p fallback_requests; f=$D
	[ $ok = 1 ] &&
		pass "TLS 1.2 $1: PUT 1 MiB stored = sha256, TlsRxSw +$rx, gcm ring +$r fallback +$f" ||
		fail "TLS 1.2 $1 PUT"
}

for c in ECDHE-RSA-AES128-GCM-SHA256 ECDHE-RSA-AES256-GCM-SHA384; do
	fetch 1.2 "$c"
	put "$c"
done
for c in TLS_AES_128_GCM_SHA256 TLS_AES_256_GCM_SHA384; do
	fetch 1.3 "$c"
done

grep -E '\[(alert|crit|emerg)\]' "$d/error.log" && fail "nginx logged errors (above)"
no_splat && pass "no kernel warning" || fail "kernel warnings (above)"
finish
