console.log("agent");
