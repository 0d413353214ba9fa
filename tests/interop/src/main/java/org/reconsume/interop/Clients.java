package org.reconsume.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.AuthenticationFactory;
import org.apache.pulsar.client.api.ClientBuilder;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;

/** The PulsarClient of a command: --url, and --ca, --verify-hostname, --token, --token-file. */
final class Clients {
  static final Set<String> OPTIONS =
      Set.of("url", "ca", "verify-hostname", "token", "token-file", "timeout-ms");

  private Clients() {}

  static PulsarClient create(Options options, Deadline deadline)
      throws UsageError, IOException, PulsarClientException {
    long operationTimeoutMs = Math.max(1_000, Math.min(deadline.timeoutMs(), 30_000));
    ClientBuilder builder = PulsarClient.builder()
        .serviceUrl(options.required("url"))
        .operationTimeout((int) operationTimeoutMs, TimeUnit.MILLISECONDS)
        .connectionTimeout((int) Math.min(operationTimeoutMs, 10_000), TimeUnit.MILLISECONDS)
        // A test that expects a failure (bad token, wrong CA) must see it, not endless retries.
        .startingBackoffInterval(100, TimeUnit.MILLISECONDS)
        .maxBackoffInterval(1, TimeUnit.SECONDS);
    if (options.has("ca")) {
      builder.tlsTrustCertsFilePath(options.required("ca"))
          .allowTlsInsecureConnection(false)
          .enableTlsHostnameVerification(options.has("verify-hostname"));
    }
    String token = options.optional("token", null);
    if (options.has("token-file")) {
      token = Files.readString(Path.of(options.required("token-file")), StandardCharsets.UTF_8)
          .trim();
    }
    if (token != null) builder.authentication(AuthenticationFactory.token(token));
    return builder.build();
  }
}
