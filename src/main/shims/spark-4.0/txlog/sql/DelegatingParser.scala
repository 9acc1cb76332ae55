package txlog.sql

import org.apache.spark.sql.catalyst.parser.ParserInterface

/** [[DelegatingParser4]] as Spark 4.0's parser interface is: nothing more to hand on (4.1 adds
  * parsing with a query's parameters: the spark-4.1-4.2 shim).
  */
private[txlog] abstract class DelegatingParser(delegate: ParserInterface)
    extends DelegatingParser4(delegate)
