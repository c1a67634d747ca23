package season
