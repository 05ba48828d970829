/* placeholder: replaced by the dd library */
