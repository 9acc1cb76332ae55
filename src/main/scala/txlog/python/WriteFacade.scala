package txlog.python

import java.util.{Map => JMap}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame

import txlog.{DeltaLog, WriteOptions}
import txlog.errors.TxlogErrors
import txlog.util.OptionValues

/** The data-writing half of [[PythonFacade]] (Python's `txlog.write`); its methods are called as
  * `PythonFacade.<name>`.
  */
private[python] trait WriteFacade extends FacadeArgs {

  private val WriteKeys = Set(
    "mode",
    "partitionBy",
    "replaceWhere",
    "txnAppId",
    "txnVersion",
    "mergeSchema",
    "overwriteSchema"
  )

  /** `DeltaLog.write` by options: `mode`, `partitionBy` (a JSON array of names), `replaceWhere`,
    * `txnAppId`, `txnVersion`, `mergeSchema` and `overwriteSchema` ("true" or "false");
    * `properties` separately. An unknown option is INVALID_ARGUMENT. Returns the result's summary
    * as JSON. Example: `PythonFacade.write(df._jdf, "/data/t", {"mode": "append"}, {})`.
    */
  def write(
      df: DataFrame,
      path: String,
      options: JMap[String, String],
      properties: JMap[String, String]
  ): String = {
    val o = asScala(options)
    val unknown = o.keySet -- WriteKeys
    if (unknown.nonEmpty) {
      throw TxlogErrors.invalidArgument(
        unknown.toSeq.sorted.head,
        s"unknown write option; known: ${WriteKeys.toSeq.sorted.mkString(", ")}"
      )
    }
    val parts = o.get("partitionBy").map(names("partitionBy", _))
    val r = DeltaLog.write(
      df,
      path,
      WriteOptions(
        mode = o.getOrElse("mode", "append"),
        partitionBy = parts.getOrElse(Nil),
        properties = asScala(properties),
        replaceWhere = o.get("replaceWhere"),
        txnAppId = o.get("txnAppId"),
        txnVersion = OptionValues.wholeNumber(o, "txnVersion"),
        mergeSchema = OptionValues.flag(o, "mergeSchema", default = false),
        overwriteSchema = OptionValues.flag(o, "overwriteSchema", default = false)
      )
    )
    r.toJson
  }

  /** `DeltaLog.delete`; the result's summary as JSON. Example: `PythonFacade.delete(log, "d < 3")`.
    */
  def delete(log: DeltaLog, predicate: String): String = log.delete(predicate).toJson

  private val OptimizeKeys = Set("where", "targetSize", "minFileSize", "dryRun")

  /** `DeltaLog.optimize` by options: `where`, `targetSize`, `minFileSize` (bytes), `dryRun`
    * ("false" by default); the result's summary as JSON. Example: `PythonFacade.optimize(log,
    * {"dryRun": "true"})`.
    */
  def optimize(log: DeltaLog, options: JMap[String, String]): String = {
    val o = asScala(options)
    (o.keySet -- OptimizeKeys).toSeq.sorted.headOption.foreach { k =>
      throw TxlogErrors.invalidArgument(k, "unknown optimize option")
    }
    val default = txlog.write.Optimize.DefaultTargetSize
    log
      .optimize(
        o.get("where"),
        OptionValues.wholeNumber(o, "targetSize").getOrElse(default),
        OptionValues.wholeNumber(o, "minFileSize").getOrElse(default),
        OptionValues.flag(o, "dryRun", default = false)
      )
      .toJson
  }

  private val PurgeKeys = Set("where", "dryRun")

  /** `DeltaLog.purgeDeletionVectors` by options: `where`, `dryRun` ("false" by default); the
    * result's summary as JSON. Example: `PythonFacade.purgeDeletionVectors(log, {})`.
    */
  def purgeDeletionVectors(log: DeltaLog, options: JMap[String, String]): String = {
    val o = asScala(options)
    (o.keySet -- PurgeKeys).toSeq.sorted.headOption.foreach { k =>
      throw TxlogErrors.invalidArgument(k, "unknown purge option")
    }
    log.purgeDeletionVectors(o.get("where"), OptionValues.flag(o, "dryRun", default = false)).toJson
  }
}
