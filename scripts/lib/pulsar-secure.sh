# The secure variant of scripts/pulsar.sh (the standalone): the TLS certificates and tokens it
# creates in <dir>, and its configuration, standalone-secure.conf. Sourced, never run.
#
# The sourcing script sets dist (scripts/lib/pulsar-dist.sh), broker_tls_port, web_tls_port and
# super_user and defines die and set_conf before calling these.
# shellcheck shell=bash
# shellcheck disable=SC2154  # dist, broker_tls_port, web_tls_port, super_user: the sourcing script's

make_secure_material() {
  local dir=$1
  mkdir -p "$dir"
  command -v openssl >/dev/null || die "openssl is not installed"
  if [[ ! -f "$dir/ca.pem" || ! -f "$dir/ca.key" ]]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -keyout "$dir/ca.key" -out "$dir/ca.pem" \
      -subj "/CN=reconsume test CA" -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null || die "openssl: CA"
    rm -f "$dir/server.pem"
  fi
  if [[ ! -f "$dir/server.pem" || ! -f "$dir/server.key" ]]; then
    # PKCS#8 key ("BEGIN PRIVATE KEY"), the form the broker's TLS stack reads.
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$dir/server.key" \
      2>/dev/null || die "openssl: server key"
    openssl req -new -key "$dir/server.key" -subj "/CN=localhost" -out "$dir/server.csr" ||
      die "openssl: server request"
    printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
      "extendedKeyUsage=serverAuth" "subjectAltName=DNS:localhost" >"$dir/server.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
      -CAcreateserial -days 3650 -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null ||
      die "openssl: server certificate"
    rm -f "$dir/server.csr" "$dir/server.ext" "$dir/ca.srl"
  fi
  if [[ ! -f "$dir/wrong-ca.pem" ]]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -keyout "$dir/wrong-ca.key" \
      -out "$dir/wrong-ca.pem" -subj "/CN=reconsume unrelated CA" \
      -addext "basicConstraints=critical,CA:TRUE" 2>/dev/null || die "openssl: wrong CA"
  fi
  # Tokens with Pulsar's own tool, so they are exactly what a Pulsar deployment would use.
  if [[ ! -f "$dir/secret.key" ]]; then
    "$dist/bin/pulsar" tokens create-secret-key --output "$dir/secret.key" >/dev/null ||
      die "pulsar tokens create-secret-key"
    rm -f "$dir/token.txt"
  fi
  if [[ ! -f "$dir/token.txt" ]]; then
    local token
    token=$("$dist/bin/pulsar" tokens create --secret-key "file://$dir/secret.key" \
      --subject "$super_user") || die "pulsar tokens create"
    printf '%s' "$token" >"$dir/token.txt"
  fi
  if [[ ! -f "$dir/other-secret.key" ]]; then
    "$dist/bin/pulsar" tokens create-secret-key --output "$dir/other-secret.key" >/dev/null ||
      die "pulsar tokens create-secret-key"
    rm -f "$dir/bad-token.txt"
  fi
  if [[ ! -f "$dir/bad-token.txt" ]]; then
    local token
    token=$("$dist/bin/pulsar" tokens create --secret-key "file://$dir/other-secret.key" \
      --subject "$super_user") || die "pulsar tokens create"
    printf '%s' "$token" >"$dir/bad-token.txt"
  fi
}

write_secure_config() {
  local dir=$1 conf="$dist/conf/standalone-secure.conf"
  cp "$dist/conf/standalone.conf" "$conf"
  set_conf "$conf" brokerServicePortTls "$broker_tls_port"
  set_conf "$conf" webServicePortTls "$web_tls_port"
  set_conf "$conf" tlsCertificateFilePath "$dir/server.pem"
  set_conf "$conf" tlsKeyFilePath "$dir/server.key"
  set_conf "$conf" tlsTrustCertsFilePath "$dir/ca.pem"
  set_conf "$conf" authenticationEnabled true
  set_conf "$conf" authenticationProviders \
    org.apache.pulsar.broker.authentication.AuthenticationProviderToken
  set_conf "$conf" tokenSecretKey "file://$dir/secret.key"
  set_conf "$conf" authorizationEnabled true
  set_conf "$conf" superUserRoles "$super_user"
  # The broker's own client (standalone set-up, system topics, the transaction coordinator) must
  # authenticate like anyone else, over TLS with the same CA.
  set_conf "$conf" brokerClientAuthenticationPlugin \
    org.apache.pulsar.client.impl.auth.AuthenticationToken
  set_conf "$conf" brokerClientAuthenticationParameters "file://$dir/token.txt"
  set_conf "$conf" brokerClientTlsEnabled true
  set_conf "$conf" brokerClientTrustCertsFilePath "$dir/ca.pem"
}
