package txlog.storage

import java.net.URI

import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import txlog.testing.Claimed

/** When a lean GET may be sent ([[LeanRules.eligible]]) and where ([[LeanRules.endpoint]],
  * [[S3LeanGet.Endpoint.uri]]); the encodings are RFC 3986's, as SigV4 asks for S3 keys.
  */
class LeanRulesSuite extends AnyFunSuite with Claimed {
  private val S3A = "org.apache.hadoop.fs.s3a.S3AFileSystem"
  private def conf(settings: (String, String)*): Configuration = {
    val c = new Configuration(false)
    settings.foreach { case (k, v) => c.set(k, v) }
    c
  }
  private val none: String => Option[String] = _ => None
  private def eligible(c: Configuration, fs: String = S3A, bucket: String = "b"): Boolean =
    LeanRules.eligible(fs, bucket, c, none, none)

  test("eligible: S3A with its defaults, and with encryption the store applies by itself") {
    assert(eligible(conf()))
    Seq("SSE-S3", "AES256", "SSE-KMS", "DSSE-KMS", "", "none").foreach { a =>
      assert(eligible(conf("fs.s3a.encryption.algorithm" -> a)), a)
    }
    assert(
      eligible(conf("fs.s3a.encryption.algorithm" -> "SSE-KMS", "fs.s3a.encryption.key" -> "k"))
    )
    assert(eligible(conf("fs.s3a.requester.pays.enabled" -> "false", "fs.s3a.proxy.host" -> " ")))
  }

  test("not eligible where S3A's settings change a GET") {
    val changing = Seq(
      "fs.s3a.encryption.algorithm" -> "SSE-C",
      "fs.s3a.encryption.algorithm" -> "CSE-KMS",
      "fs.s3a.server-side-encryption-algorithm" -> "SSE-C",
      "fs.s3a.requester.pays.enabled" -> "true",
      "fs.s3a.custom.signers" -> "s:org.example.Signer",
      "fs.s3a.signing-algorithm" -> "AWS4SignerType",
      "fs.s3a.s3.signing-algorithm" -> "S3SignerType",
      "fs.s3a.audit.execution.interceptors" -> "org.example.Interceptor",
      "fs.s3a.audit.request.handlers" -> "org.example.Handler",
      "fs.s3a.proxy.host" -> "proxy.example",
      "fs.s3a.accesspoint.arn" -> "arn:aws:s3:eu-west-1:123456789012:accesspoint/ap",
      "fs.s3a.accesspoint.required" -> "true",
      "fs.s3a.endpoint.fips" -> "true"
    )
    changing.foreach { case (k, v) => assert(!eligible(conf(k -> v)), s"$k=$v") }
    assert(!eligible(conf(), fs = "com.example.MyS3AFileSystem"))
    assert(!eligible(conf(), bucket = "fast--usw2-az1--x-s3"))
  }

  test("not eligible behind a proxy of the JVM or the environment, which the SDK would use") {
    val proxy: String => String => Option[String] =
      key => k => if (k == key) Some("p:3128") else None
    Seq("HTTPS_PROXY", "http_proxy").foreach { v =>
      assert(!LeanRules.eligible(S3A, "b", conf(), proxy(v), none), v)
    }
    assert(!LeanRules.eligible(S3A, "b", conf(), none, proxy("https.proxyHost")))
    assert(LeanRules.eligible(S3A, "b", conf(), proxy("NO_PROXY"), proxy("http.nonProxyHosts")))
  }

  test("endpoint: S3A's override, path style or virtual-hosted, with its port") {
    val c = conf()
    val local = Some(URI.create("http://127.0.0.1:9000"))
    val path = LeanRules.endpoint(local, "us-east-1", "bench", pathStyle = true, c).get
    assert(
      path.uri("bench", "w2/_delta_log/00000000000000000001.json").toString ===
        "http://127.0.0.1:9000/bench/w2/_delta_log/00000000000000000001.json"
    )
    val hosted = LeanRules
      .endpoint(Some(URI.create("https://minio.example")), "eu-west-1", "b", pathStyle = false, c)
      .get
    assert(
      hosted.uri("b", "t/_delta_log/_last_checkpoint").toString ===
        "https://b.minio.example/t/_delta_log/_last_checkpoint"
    )
    assert(LeanRules.endpoint(Some(URI.create("http://h:1/prefix")), "r", "b", true, c).isEmpty)
    assert(LeanRules.endpoint(Some(URI.create("ftp://h")), "r", "b", true, c).isEmpty)
  }

  test("endpoint without an override: AWS's regional endpoint over https, only where it is that") {
    val c = conf()
    assert(
      LeanRules.endpoint(None, "eu-west-1", "b", false, c).get.uri("b", "k").toString ===
        "https://b.s3.eu-west-1.amazonaws.com/k"
    )
    assert(
      LeanRules.endpoint(None, "us-gov-west-1", "b", false, c).get.uri("b", "k").toString ===
        "https://b.s3.us-gov-west-1.amazonaws.com/k"
    )
    // A bucket with dots is not a valid TLS host label: path style, as the SDK sends it.
    assert(
      LeanRules.endpoint(None, "us-east-2", "my.b", false, c).get.uri("my.b", "k").toString ===
        "https://s3.us-east-2.amazonaws.com/my.b/k"
    )
    assert(LeanRules.endpoint(None, "cn-north-1", "b", false, c).isEmpty)
    assert(LeanRules.endpoint(None, "us-isob-east-1", "b", false, c).isEmpty)
    val http = conf("fs.s3a.connection.ssl.enabled" -> "false")
    assert(LeanRules.endpoint(None, "eu-west-1", "b", false, http).isEmpty)
  }

  test("keys are encoded as SigV4 canonical URIs: RFC 3986 unreserved kept, slashes kept") {
    val e = S3LeanGet.Endpoint("http", "h", -1, pathStyle = true)
    assert(e.uri("b", "a b/c=1+2/x~y_z-.json").getRawPath === "/b/a%20b/c%3D1%2B2/x~y_z-.json")
    assert(e.uri("b", "ü/日").getRawPath === "/b/%C3%BC/%E6%97%A5")
    assert(e.uri("b", "p%41*").getRawPath === "/b/p%2541%2A")
  }

  test("timeouts: S3A's, with units (milliseconds without), else S3A's defaults") {
    assert(LeanRules.socketMillis(conf("fs.s3a.connection.timeout" -> "15s")) === 15000L)
    assert(LeanRules.socketMillis(conf("fs.s3a.connection.timeout" -> "5000")) === 5000L)
    assert(LeanRules.socketMillis(conf()) === 200000L)
    assert(LeanRules.connectMillis(conf("fs.s3a.connection.establish.timeout" -> "5s")) === 5000L)
    assert(LeanRules.connectMillis(conf()) === 30000L)
  }
}
