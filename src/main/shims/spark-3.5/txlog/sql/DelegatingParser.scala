package txlog.sql

import org.apache.spark.sql.catalyst.parser.ParserInterface

/** [[DelegatingParserBase]] as Spark 3.5's parser interface is: nothing more to hand on. */
private[txlog] abstract class DelegatingParser(delegate: ParserInterface)
    extends DelegatingParserBase(delegate)
