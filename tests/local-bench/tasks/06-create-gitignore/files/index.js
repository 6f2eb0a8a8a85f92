console.log("webapp");
