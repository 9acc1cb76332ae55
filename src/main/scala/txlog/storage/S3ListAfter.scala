package txlog.storage

import java.io.{Closeable, IOException}
import java.lang.reflect.Method
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}

import txlog.storage.S3PutClient.{call, perS3AClass}

/** Lists the files directly under a directory of S3A whose names sort after a given name, with
  * ListObjectsV2's `StartAfter` (S3A's own listing has no such call: it pages from the first key of
  * the prefix). A `_delta_log` of millions of objects then costs a reader only the pages after the
  * checkpoint it starts from. The requests go through S3A's own AWS SDK client (v2 on hadoop-aws
  * 3.4+, v1 on 3.3), built by S3A's request factory, so credentials, endpoint, requester-pays and
  * auditing are the table's S3A settings; the page size is S3A's `fs.s3a.paging.maximum`.
  *
  * A store that ignores `StartAfter` returns earlier names too: callers filter by name anyway.
  */
private[txlog] trait S3ListAfter {

  /** Calls `f` with each file directly under `dir` (not in its subdirectories) whose name sorts
    * after `after`, in name order. A failure of the store is an IOException.
    */
  def foreachAfter(dir: Path, after: String)(f: FileStatus => Unit): Unit
}

private[txlog] object S3ListAfter {

  /** S3A's listing API version; 1 means the store has no ListObjectsV2 (no `StartAfter`). */
  private val ListVersionKey = "fs.s3a.list.version"
  private val PagingKey = "fs.s3a.paging.maximum"

  /** The lister of `fs` when it is S3A on an AWS SDK txlog can reach and the store lists with
    * ListObjectsV2; None otherwise (S3A's own listing is used then).
    */
  def of(fs: FileSystem): Option[S3ListAfter] =
    if (!S3PutClient.isS3A(fs.getClass) || fs.getConf.getInt(ListVersionKey, 2) == 1) None
    else
      try V2.of(fs).orElse(V1.of(fs))
      catch { case _: LinkageError => None }

  private def pageSize(fs: FileSystem): Int = fs.getConf.getInt(PagingKey, 5000).max(1).min(1000)

  /** The key prefix of the files directly under `dir`. */
  private def prefixOf(key: String): String = if (key.endsWith("/")) key else key + "/"

  /** A status for the object `key` under `dir` (a file: S3 has no other kind of object here). */
  private def status(fs: FileSystem, dir: Path, name: String, size: Long, mtime: Long) =
    new FileStatus(size, false, 1, fs.getDefaultBlockSize(dir), mtime, new Path(dir, name))

  /** S3A's bucket, key and audit span methods, common to both SDKs. */
  private class Common(cls: Class[_]) {
    private val bucketOf = cls.getMethod("getBucket")
    private val keyOf = cls.getMethod("pathToKey", classOf[Path])
    private val factoryOf = cls.getMethod("getRequestFactory")
    private val spanOf: Option[Method] =
      cls.getMethods.find(m => m.getName == "createSpan" && m.getParameterCount == 3)
    def bucket(fs: FileSystem): String = call(bucketOf, fs).asInstanceOf[String]
    def key(fs: FileSystem, p: Path): String = call(keyOf, fs, p).asInstanceOf[String]
    def factory(fs: FileSystem): AnyRef = call(factoryOf, fs)
    def span(fs: FileSystem, key: String): Option[Closeable] =
      spanOf.map(m => call(m, fs, "txlog_list_after", key, null).asInstanceOf[Closeable])
  }

  /** One page of a listing: (key, size, modification time) of its objects, and the continuation
    * token of the next page, if any.
    */
  private type Page = (Iterator[(String, Long, Long)], Option[String])

  /** The listing loop both SDKs share: pages asked of `page` (given the previous page's token) in
    * an audit span of `fs`, each object directly under `dir` given to `f`; a failure the SDK raises
    * (`isStoreError`) becomes an IOException naming the listing.
    */
  private def foreachListed(fs: FileSystem, common: Common, dir: Path, prefix: String)(
      isStoreError: Throwable => Boolean
  )(page: Option[String] => Page)(f: FileStatus => Unit): Unit = {
    val span = common.span(fs, prefix)
    try {
      var token = Option.empty[String]
      var first = true
      while (first || token.isDefined) {
        first = false
        val (objects, next) = page(token)
        objects.foreach { case (key, size, mtime) =>
          val name = key.substring(prefix.length)
          if (name.nonEmpty && !name.contains('/')) f(status(fs, dir, name, size, mtime))
        }
        token = next
      }
    } catch {
      case e if isStoreError(e) =>
        throw new IOException(s"listing s3a://${common.bucket(fs)}/$prefix: $e", e)
    } finally
      span.foreach(s =>
        try s.close()
        catch { case NonFatal(_) => () }
      )
  }

  /** Through S3A's AWS SDK v2 client (hadoop-aws 3.4+). */
  private object V2 {
    import software.amazon.awssdk.core.exception.SdkException
    import software.amazon.awssdk.services.s3.S3Client
    import software.amazon.awssdk.services.s3.model.ListObjectsV2Request

    private final class Access(cls: Class[_]) extends Common(cls) {
      private val loader = cls.getClassLoader
      private def iface(name: String) = Class.forName(name, false, loader)
      private val internalsOf = cls.getMethod("getS3AInternals")
      private val clientOf =
        iface("org.apache.hadoop.fs.s3a.S3AInternals")
          .getMethod("getAmazonS3Client", classOf[String])
      private val newList = iface("org.apache.hadoop.fs.s3a.api.RequestFactory")
        .getMethod("newListObjectsV2RequestBuilder", classOf[String], classOf[String], classOf[Int])
      def client(fs: FileSystem): S3Client =
        call(clientOf, call(internalsOf, fs), "txlog list-after").asInstanceOf[S3Client]
      def request(fs: FileSystem, prefix: String, page: Int): ListObjectsV2Request.Builder =
        call(newList, factory(fs), prefix, "/", Integer.valueOf(page))
          .asInstanceOf[ListObjectsV2Request.Builder]
    }
    private val byClass = new ConcurrentHashMap[Class[_], Option[Access]]()

    def of(fs: FileSystem): Option[S3ListAfter] = perS3AClass(byClass, fs)(new Access(_)).map {
      access =>
        new S3ListAfter {
          def foreachAfter(dir: Path, after: String)(f: FileStatus => Unit): Unit = {
            val prefix = prefixOf(access.key(fs, dir))
            val first = access.request(fs, prefix, pageSize(fs)).startAfter(prefix + after).build()
            lazy val client = access.client(fs)
            foreachListed(fs, access, dir, prefix)(_.isInstanceOf[SdkException]) { token =>
              val page = client.listObjectsV2(
                token.fold(first)(t => first.toBuilder.continuationToken(t).build())
              )
              val objects =
                page.contents.asScala.iterator.map(o =>
                  (o.key, o.size.toLong, o.lastModified.toEpochMilli)
                )
              (objects, Option(page.nextContinuationToken).filter(_ => page.isTruncated))
            }(f)
          }
        }
    }
  }

  /** Through S3A's AWS SDK v1 client (hadoop-aws 3.3, as Spark 3.5 bundles). */
  private object V1 {
    import com.amazonaws.AmazonClientException
    import com.amazonaws.services.s3.AmazonS3
    import com.amazonaws.services.s3.model.ListObjectsV2Request

    private final class Access(cls: Class[_]) extends Common(cls) {
      private val loader = cls.getClassLoader
      private val clientOf = cls.getMethod("getAmazonS3ClientForTesting", classOf[String])
      require(clientOf.getReturnType.getName == "com.amazonaws.services.s3.AmazonS3", "SDK v1")
      private val newList =
        Class
          .forName("org.apache.hadoop.fs.s3a.api.RequestFactory", false, loader)
          .getMethod("newListObjectsV2Request", classOf[String], classOf[String], classOf[Int])
      def client(fs: FileSystem): AmazonS3 =
        call(clientOf, fs, "txlog list-after").asInstanceOf[AmazonS3]
      def request(fs: FileSystem, prefix: String, page: Int): ListObjectsV2Request =
        call(newList, factory(fs), prefix, "/", Integer.valueOf(page))
          .asInstanceOf[ListObjectsV2Request]
    }
    private val byClass = new ConcurrentHashMap[Class[_], Option[Access]]()

    def of(fs: FileSystem): Option[S3ListAfter] = perS3AClass(byClass, fs)(new Access(_)).map {
      access =>
        new S3ListAfter {
          def foreachAfter(dir: Path, after: String)(f: FileStatus => Unit): Unit = {
            val prefix = prefixOf(access.key(fs, dir))
            val request = access.request(fs, prefix, pageSize(fs)).withStartAfter(prefix + after)
            lazy val client = access.client(fs)
            foreachListed(fs, access, dir, prefix)(_.isInstanceOf[AmazonClientException]) { token =>
              token.foreach(request.setContinuationToken)
              val page = client.listObjectsV2(request)
              val objects = page.getObjectSummaries.asScala.iterator
                .map(o => (o.getKey, o.getSize, o.getLastModified.getTime))
              (objects, Option(page.getNextContinuationToken).filter(_ => page.isTruncated))
            }(f)
          }
        }
    }
  }
}
